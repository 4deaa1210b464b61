//! Fixtures shared by the tests and benchmarks of several crates of the workspace (a
//! dev-dependency only; never published):
//!
//! - [`abi_lib`]: the hand-written Free Pascal library implementing the ABI (`abi_lib/`), used
//!   by the runtime's host tests and benchmark and by the root end-to-end tests;
//! - [`synthetic`]: the parser's synthetic unit, used by its benchmark, its `synth` example and
//!   its direct-path test.

pub mod abi_lib;
pub mod synthetic;
