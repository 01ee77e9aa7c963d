//! A lowered program as text ([`Lowered::as_text`]): XLA's module header
//! (`input_output_alias`, `buffer_donor`, the memory analysis with the
//! peak's lower bound), then the program in the jaxpr grammar with the
//! buffer every equation writes and the bytes live while it runs. A fused
//! group ([`super::fuse`]) is announced by a `fusion[op, op, ...]` line
//! before its equations, which stay listed one by one.

use std::fmt::Write as _;

use super::lower::{Lowered, Origin, Write};
use super::print::Names;
use super::Var;

impl Lowered {
    /// The plan as text: a header in XLA's syntax (`input_output_alias`,
    /// `buffer_donor`), then every equation with the buffer it writes.
    pub fn as_text(&self, name: &str) -> String {
        let p = &self.program;
        let names = Names::new(p);
        let aliases: Vec<String> = self
            .aliases
            .iter()
            .map(|(o, k)| format!("{{{o}}}: ({k}, {{}}, must-alias)"))
            .collect();
        let donors: Vec<String> = self.donors.iter().map(|k| format!("({k}, {{}})")).collect();
        let mut s = format!("HloModule jit_{name}");
        if !aliases.is_empty() {
            let _ = write!(s, ", input_output_alias={{ {} }}", aliases.join(", "));
        }
        if !donors.is_empty() {
            let _ = write!(s, ", buffer_donor={{ {} }}", donors.join(", "));
        }
        let m = &self.memory;
        let _ = write!(
            s,
            "\n// arguments {} B, outputs {} B (aliased {} B), temporaries {} B, peak {} B ({:.2}x its lower bound {} B)",
            m.argument_size_in_bytes,
            m.output_size_in_bytes,
            m.alias_size_in_bytes,
            m.temp_size_in_bytes,
            m.peak_memory_in_bytes,
            m.peak_over_bound(),
            m.peak_lower_bound_in_bytes,
        );
        let list = |vs: &[Var]| {
            vs.iter()
                .map(|&v| names.typed(p, v))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let sep = if p.consts.is_empty() { "" } else { " " };
        let _ = write!(
            s,
            "\n{{ lambda {}{sep}; {}. let",
            list(&p.consts),
            list(&p.inputs)
        );
        for (i, ((e, st), live)) in p
            .eqns
            .iter()
            .zip(&self.steps)
            .zip(&self.live_bytes)
            .enumerate()
        {
            if let Some(g) = self.fusion_at(i) {
                let _ = write!(s, "\n    {}", super::fuse::header(self, g, &names));
            }
            let line = names.eqn(p, e);
            let place = match st.write {
                Write::InPlace { arg } => format!("in place over {}", names.atom(&e.args[arg])),
                Write::View => "a view of its argument's buffer".into(),
                Write::Buffer {
                    buffer,
                    reused: false,
                } => format!(
                    "new buffer #{buffer} ({} B)",
                    self.buffers[buffer as usize].bytes
                ),
                Write::Buffer {
                    buffer,
                    reused: true,
                } => {
                    let from = match self.buffers[buffer as usize].origin {
                        Origin::Input(k) => format!("argument {k}"),
                        Origin::Alloc(j) => names.get(p.eqns[j].out).to_string(),
                        Origin::Const(_) => "a constant".into(),
                    };
                    format!(
                        "reuses buffer #{buffer} of {from} ({} B)",
                        self.buffers[buffer as usize].bytes
                    )
                }
            };
            let _ = write!(s, "\n    {line:<60} # {place}; {live} B live");
        }
        let outs: Vec<&str> = p.outputs.iter().map(|&v| names.get(v)).collect();
        let _ = write!(
            s,
            "\n  in ({}{}) }}",
            outs.join(", "),
            if outs.len() == 1 { "," } else { "" }
        );
        s
    }
}
