#!/usr/bin/env python3
"""Print the import graphs of the core's and the bindings' top-level
modules and their cycles.

    python3 scripts/module-cycles.py [--graph]

The core: reads every `.rs` file under `src/` except `src/lib.rs` (the
root, which re-exports), and
takes each `crate::` path in code (comments, doc links and string literals
do not count) as an edge from the file's module to the module the path
names. A module is a top-level one (`src/kernels/fresh.rs` belongs to
`kernels`), except in the layer folders that only group modules
(`memory`, `array`, `functions`, `driver`), whose children are modules of
their own (`src/memory/buffer.rs` is `memory::buffer`, reached by
`crate::memory::buffer::...` or, from a sibling, `super::buffer::...`). A
path through a root re-export (`crate::Tensor`) is resolved with the
`pub use` lines of `src/lib.rs`. Test modules count too: a cycle is a
cycle.

The bindings (`bindings/src/`, a crate of its own on top of the core):
the same, with `super::` paths of a file counted too (`super::tensor` in
`bindings/src/jit.rs`, `super::super::ops` in `bindings/src/temporary/
mod.rs`'s children), since the bindings' modules name each other that way.

Prints the strongly connected components with more than one module and
exits 1 if there is any in either crate (0 if both graphs are acyclic),
so CI can run it.
With `--graph`, also prints every module's dependencies.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
BINDINGS = ROOT / "bindings" / "src"


CHAR = re.compile(r"'(?:\\(?:'|[^']{1,10})|[^\\'\n])'")


def strip_comments_and_strings(text):
    """The code of a Rust file without comments, string or char literals."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and re.match(r'r#*"', text[i:i + 8]) and not (
            i and (text[i - 1].isalnum() or text[i - 1] == "_")
        ):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            i = n if end < 0 else end + 1 + len(hashes)
            out.append('""')
        elif c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append('""')
        elif c == "'" and CHAR.match(text, i):
            # a char literal (a lifetime has no closing quote)
            i = CHAR.match(text, i).end()
            out.append("' '")
        else:
            out.append(c)
            i += 1
    return "".join(out)


# The core's folders that only group modules: each child is a node.
GROUPS = ("memory", "array", "functions", "driver")


def modules(src=SRC, groups=()):
    """Module name -> list of its files (a group's `mod.rs` belongs to no
    module: it only declares its children)."""
    mods = {}
    for f in sorted(src.rglob("*.rs")):
        rel = f.relative_to(src)
        if rel == Path("lib.rs"):
            continue
        name = rel.parts[0].removesuffix(".rs")
        if name in groups:
            if len(rel.parts) == 2 and rel.parts[1] == "mod.rs":
                continue
            name += "::" + rel.parts[1].removesuffix(".rs")
        mods.setdefault(name, []).append(f)
    return mods


def use_tree_paths(tree):
    """The paths of a `use` tree, as lists of segments: `a::b::X` ->
    [[a, b, X]], `{a::X, b::{c, d}}` -> [[a, X], [b, c], [b, d]]."""
    tree = tree.strip()
    m = re.match(r"((?:\w+\s*::\s*)*)(\{|\w*)", tree)
    prefix = [s for s in re.split(r"\s*::\s*", m.group(1)) if s]
    if m.group(2) != "{":
        return [prefix + ([m.group(2)] if m.group(2) else [])]
    out, depth, start, body = [], 0, 0, tree[m.start(2):]
    for k, ch in enumerate(body):
        if ch == "{":
            depth += 1
            if depth == 1:
                start = k + 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                part = body[start:k].strip()
                out += [prefix + q for q in use_tree_paths(part)] if part else []
                break
        elif ch == "," and depth == 1:
            part = body[start:k].strip()
            out += [prefix + q for q in use_tree_paths(part)] if part else []
            start = k + 1
    return out


def module_of(path, mods):
    """The module a `crate::` path names (a group's child when the path
    goes into a group), or None."""
    if not path:
        return None
    if path[0] in GROUPS and len(path) > 1:
        name = path[0] + "::" + path[1]
        return name if name in mods else None
    return path[0] if path[0] in mods else None


def use_tree_heads(tree):
    """First segments of a `use` tree's paths: `a::X` -> a, `{a::X, b}` -> a, b."""
    tree = tree.strip()
    if not tree.startswith("{"):
        return [re.match(r"\w*", tree).group(0)]
    heads, depth, start = [], 0, 1
    for k, ch in enumerate(tree):
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                heads += use_tree_heads_part(tree[start:k])
                break
        elif ch == "," and depth == 1:
            heads += use_tree_heads_part(tree[start:k])
            start = k + 1
    return heads


def use_tree_heads_part(part):
    part = part.strip()
    return use_tree_heads(part) if part else []


def root_reexports(mods):
    """Names re-exported at the crate root -> the module they come from."""
    code = strip_comments_and_strings((SRC / "lib.rs").read_text())
    names = {}
    for m in re.finditer(r"\bpub\s+use\s+([^;]*);", code):
        for path in use_tree_paths(m.group(1)):
            module = module_of(path, mods)
            if module and len(path) > 1:
                names[path[-1]] = module
    return names


def graph():
    mods = modules(groups=GROUPS)
    reexports = root_reexports(mods)
    edges = {m: set() for m in mods}
    for m, files in mods.items():
        group = m.split("::")[0] if "::" in m else None
        for f in files:
            code = strip_comments_and_strings(f.read_text())
            paths = []
            for hit in re.finditer(r"(?<![\w$])\$?crate\s*::\s*", code):
                paths += use_tree_paths(code[hit.end():])
            if group:
                # `super::sibling` from a group's direct child
                depth = len(f.relative_to(SRC).parts) - 2
                for hit in re.finditer(r"(?<![\w$:])((?:super\s*::\s*)+)", code):
                    if hit.group(1).count("super") == depth + 1:
                        paths += [[group] + q for q in use_tree_paths(code[hit.end():])]
            for path in paths:
                target = module_of(path, mods) or (reexports.get(path[0]) if path else None)
                if target and target != m:
                    edges[m].add(target)
    return edges


def bindings_graph():
    """The bindings' graph: `crate::x` and, from a file `depth` folders
    below the root, `super::` repeated `depth + 1` times (`mod.rs` counts
    as its folder) name the top-level module `x`."""
    mods = modules(BINDINGS)
    edges = {m: set() for m in mods}
    for m, files in mods.items():
        for f in files:
            rel = f.relative_to(BINDINGS)
            depth = len(rel.parts) - 1 - (1 if f.name == "mod.rs" else 0)
            code = strip_comments_and_strings(f.read_text())
            heads = []
            for hit in re.finditer(r"(?<![\w$])crate\s*::\s*", code):
                heads += use_tree_heads(code[hit.end():])
            for hit in re.finditer(r"(?<![\w$:])((?:super\s*::\s*)+)", code):
                if hit.group(1).count("super") == depth + 1:
                    heads += use_tree_heads(code[hit.end():])
            edges[m] |= {h for h in heads if h in mods and h != m}
    return edges


def sccs(edges):
    """Tarjan's strongly connected components."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def check(name, edges):
    """Print `edges`' cycles (and the graph with `--graph`); the count."""
    if "--graph" in sys.argv[1:]:
        for m in sorted(edges):
            print(f"{name}: {m} -> {', '.join(sorted(edges[m])) or '(nothing)'}")
    cycles = [c for c in sccs(edges) if len(c) > 1]
    for c in cycles:
        members = set(c)
        inner = [f"{a} -> {b}" for a in c for b in sorted(edges[a] & members)]
        print(f"{name}: cycle: {{{', '.join(c)}}}: {'; '.join(inner)}")
    if cycles:
        print(f"{len(cycles)} cycle(s) among the modules of the {name}", file=sys.stderr)
    else:
        print(f"no cycles among the {len(edges)} modules of the {name}")
    return len(cycles)


def main():
    bad = check("core", graph()) + check("bindings", bindings_graph())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
