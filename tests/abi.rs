//! Libraries built by Free Pascal, loaded into this test process and called from Rust: the ABI
//! fixture through its generated stubs (every row of the type table, faults, floating-point
//! state) and the calc example through `bind!`.
//!
//! A test that loads a library into the test process belongs here, as a module in
//! `tests/abi/`. The dynamic loader maps a library file once per process, so the tests of this
//! binary share each library's global state: `bind` closes calc's module, which is why the
//! examples' calls (`tests/cli/examples.rs`) run in the `cli` binary. Shared helpers in
//! `tests/support/`.

mod support;

mod abi {
    mod bind;
    mod stubs;
}
