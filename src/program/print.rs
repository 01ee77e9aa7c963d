//! A program printed in the jaxpr grammar:
//! `{ lambda consts ; inputs. let eqns in (outputs,) }`, variables typed
//! (`a:f32[4,8]`), literals inline, parameters in brackets.

use crate::py_repr::{py_bool, py_float, tuple};
use std::fmt::{self, Write as _};

use super::{Atom, Eqn, Program, Var};
use crate::array::dyn_tensor::Scalar;
use crate::array::element::DType;
use crate::array::layout::Index;
use crate::functions::lane_ops::LaneOp;
use crate::plan::{permute_axes, Op};

/// JAX's short dtype names.
pub(super) fn short(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::I8 => "i8",
        DType::I16 => "i16",
        DType::I32 => "i32",
        DType::I64 => "i64",
        DType::U8 => "u8",
        DType::U16 => "u16",
        DType::U32 => "u32",
        DType::U64 => "u64",
        DType::F16 => "f16",
        DType::F32 => "f32",
        DType::F64 => "f64",
        DType::C64 => "c64",
        DType::C128 => "c128",
    }
}

fn scalar(s: Scalar) -> String {
    match s {
        Scalar::Bool(b) => if b { "True" } else { "False" }.into(),
        Scalar::Int(i) => i.to_string(),
        Scalar::Float(f) => py_float(f),
        Scalar::Complex(re, im) => {
            let im = py_float(im);
            let sign = if im.starts_with('-') { "" } else { "+" };
            format!("({}{sign}{im}j)", py_float(re))
        }
    }
}

/// `a`, …, `z`, `ba`, `bb`, … as JAX names variables.
fn name(mut n: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (n % 26) as u8);
        n /= 26;
        if n == 0 {
            break;
        }
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

fn index(ix: &[Index]) -> String {
    let parts: Vec<String> = ix
        .iter()
        .map(|i| match i {
            Index::Int(i) => i.to_string(),
            Index::NewAxis => "None".into(),
            Index::Ellipsis => "...".into(),
            Index::Slice { start, stop, step } => {
                let o = |v: &Option<i64>| v.map(|v| v.to_string()).unwrap_or_default();
                if *step == 1 {
                    format!("{}:{}", o(start), o(stop))
                } else {
                    format!("{}:{}:{step}", o(start), o(stop))
                }
            }
        })
        .collect();
    format!("({})", parts.join(", "))
}

/// The parameters of `op` in brackets (empty when it has none).
pub(super) fn params(op: &Op, shape_in: &[usize], shape_out: &[usize]) -> String {
    let ps: Vec<String> = match op {
        Op::Unary(_)
        | Op::Binary(_)
        | Op::Func(_)
        | Op::Matmul
        | Op::Addmm
        | Op::Where
        | Op::Scatter => vec![],
        Op::Clip { min, max } => vec![
            format!("min={}", if *min { "True" } else { "False" }),
            format!("max={}", if *max { "True" } else { "False" }),
        ],
        Op::Reduce { axis, keepdims, .. } => vec![
            format!("axis={}", axis.map_or("None".into(), |a| a.to_string())),
            format!("keepdims={}", if *keepdims { "True" } else { "False" }),
        ],
        Op::Softmax { axis } => vec![format!("axis={axis}")],
        Op::LayerNorm { eps, .. } | Op::BatchNorm { eps, .. } => {
            vec![format!("eps={}", py_float(*eps))]
        }
        Op::Conv2d {
            stride, padding, ..
        } => vec![format!("padding={padding}"), format!("stride={stride}")],
        Op::Reshape { .. } => vec![format!("new_sizes={}", tuple(shape_out))],
        Op::Permute { axes } => {
            let p = permute_axes(shape_in, axes.as_deref()).unwrap_or_default();
            vec![format!("permutation={}", tuple(&p))]
        }
        Op::Index { index: ix } | Op::SetItem { index: ix } => vec![format!("index={}", index(ix))],
        Op::Cast { dtype } => vec![format!("new_dtype={dtype}")],
        Op::Lane(l) => lane_params(l),
        Op::Statistic(s) => statistic_params(s),
        Op::Fresh(f) => f.params(),
        Op::Attention { causal, scale, .. } => vec![
            format!("causal={}", if *causal { "True" } else { "False" }),
            format!("scale={}", scale.map_or("None".into(), py_float)),
        ],
    };
    if ps.is_empty() {
        String::new()
    } else {
        format!("[{}]", ps.join(" "))
    }
}

/// The parameters of a statistic (`axes=None` for every axis).
fn statistic_params(s: &crate::plan::StatisticOp) -> Vec<String> {
    use crate::functions::statistics::Statistic;
    let mut ps = vec![format!(
        "axes={}",
        s.axes.as_ref().map_or("None".into(), |a| tuple(a))
    )];
    match s.statistic {
        Statistic::Sum { dtype } | Statistic::Prod { dtype } | Statistic::Mean { dtype } => ps
            .push(format!(
                "dtype={}",
                dtype.map_or("None".into(), |d| d.to_string())
            )),
        Statistic::Var { correction } | Statistic::Std { correction } => {
            ps.push(format!("correction={}", py_float(correction)));
        }
        Statistic::Max | Statistic::Min => {}
    }
    ps.push(format!(
        "keepdims={}",
        if s.keepdims { "True" } else { "False" }
    ));
    ps
}

/// The parameters of a [`LaneOp`] (`axis=None` where it was left out).
fn lane_params(l: &LaneOp) -> Vec<String> {
    match l {
        LaneOp::Sort { axis, descending } => vec![
            format!("axis={axis}"),
            format!("descending={}", py_bool(*descending)),
        ],
        LaneOp::Running {
            axis,
            dtype,
            include_initial,
            ..
        } => vec![
            format!("axis={}", axis.map_or("None".into(), |a| a.to_string())),
            format!("dtype={}", dtype.map_or("None".into(), |d| d.to_string())),
            format!("include_initial={}", py_bool(*include_initial)),
        ],
        LaneOp::Roll { shifts, axes } => vec![
            format!("shift={}", tuple(shifts)),
            if axes.is_empty() {
                "axis=None".into()
            } else {
                format!("axis={}", tuple(axes))
            },
        ],
        LaneOp::Triangle { k, .. } => vec![format!("k={k}")],
        LaneOp::Fill { value, dtype, .. } => vec![
            format!("fill_value={}", scalar(*value)),
            format!("dtype={}", dtype.map_or("None".into(), |d| d.to_string())),
        ],
    }
}

/// Variable names in order of appearance: constants, inputs, equations.
pub(super) struct Names(Vec<String>);

impl Names {
    pub(super) fn new(p: &Program) -> Self {
        let mut names = vec![String::new(); p.vars.len()];
        let order = p
            .consts
            .iter()
            .chain(&p.inputs)
            .chain(p.eqns.iter().map(|e| &e.out));
        for (i, &v) in order.enumerate() {
            names[v as usize] = name(i);
        }
        Names(names)
    }

    pub(super) fn get(&self, v: Var) -> &str {
        &self.0[v as usize]
    }

    pub(super) fn typed(&self, p: &Program, v: Var) -> String {
        let info = &p.vars[v as usize];
        let dims: Vec<String> = info.shape.iter().map(ToString::to_string).collect();
        format!("{}:{}[{}]", self.get(v), short(info.dtype), dims.join(","))
    }

    pub(super) fn atom(&self, a: &Atom) -> String {
        match a {
            Atom::Var(v) => self.get(*v).to_string(),
            Atom::Lit(s) => scalar(*s),
        }
    }

    /// `out:type = name[params] args`.
    pub(super) fn eqn(&self, p: &Program, e: &Eqn) -> String {
        let shape_in = match e.args.first() {
            Some(Atom::Var(v)) => &p.vars[*v as usize].shape[..],
            _ => &[][..],
        };
        let mut s = format!(
            "{} = {}{}",
            self.typed(p, e.out),
            jaxpr_name(&e.op),
            params(&e.op, shape_in, &p.vars[e.out as usize].shape)
        );
        for a in &e.args {
            let _ = write!(s, " {}", self.atom(a));
        }
        s
    }
}

/// The primitive's name in a program (the eager op names, with the view
/// and setitem ops named as JAX names them).
pub(super) fn jaxpr_name(op: &Op) -> &'static str {
    match op {
        Op::Index { .. } => "getitem",
        Op::SetItem { .. } => "setitem",
        Op::Scatter => "scatter",
        Op::Cast { .. } => "convert_element_type",
        other => other.name(),
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = Names::new(self);
        let list = |vs: &[Var]| {
            vs.iter()
                .map(|&v| n.typed(self, v))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let consts = list(&self.consts);
        let sep = if consts.is_empty() { "" } else { " " };
        write!(f, "{{ lambda {consts}{sep}; {}. let", list(&self.inputs))?;
        for e in &self.eqns {
            write!(f, "\n    {}", n.eqn(self, e))?;
        }
        let outs: Vec<&str> = self.outputs.iter().map(|&v| n.get(v)).collect();
        write!(f, "\n  in {} }}", tuple(&outs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        assert_eq!(py_float(1e-5), "1e-05");
        assert_eq!(py_float(2.0), "2.0");
        assert_eq!(py_float(0.125), "0.125");
        assert_eq!(py_float(1e20), "1e+20");
        assert_eq!(name(0), "a");
        assert_eq!(name(25), "z");
        assert_eq!(name(26), "ba");
    }
}
