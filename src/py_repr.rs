//! How a printed program writes Python values (the jaxpr grammar's
//! parameters): floats as `repr` writes them, `True`/`False`, tuples with
//! the one-element comma. Used by the program printer and by each op
//! family's parameters.

/// A float as Python's `repr` writes it (`1e-05`, `2.0`, `inf`).
pub fn py_float(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    let a = x.abs();
    if a != 0.0 && !(1e-4..1e16).contains(&a) {
        // Rust writes `1e-5`; Python `1e-05`.
        let s = format!("{x:e}");
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = e.strip_prefix('-').map_or(("+", e), |d| ("-", d));
        return format!("{m}e{sign}{digits:0>2}");
    }
    format!("{x:?}")
}

/// `True` or `False`.
pub fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// A tuple as Python writes it: `(1, 2)`, `(1,)`, `()`.
pub fn tuple<T: ToString>(xs: &[T]) -> String {
    match xs {
        [x] => format!("({},)", x.to_string()),
        _ => format!(
            "({})",
            xs.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
