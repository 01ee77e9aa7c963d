//! Expose PyO3's configuration as cfgs (`Py_3_14`, `Py_GIL_DISABLED`,
//! `Py_LIMITED_API`, ...): the bindings pick the temporary check that is
//! correct for the interpreter being built for.
fn main() {
    pyo3_build_config::use_pyo3_cfgs();
}
