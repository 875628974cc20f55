//! Running the `tool-carrier` binary from the CLI tests.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Run the command with `args` in `dir`, feeding it `stdin`.
pub fn run_in(dir: &Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tool-carrier"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    // A child that exits without reading (a usage error) closes the pipe.
    let _ = pipe.write_all(stdin);
    drop(pipe);
    child.wait_with_output().unwrap()
}

/// The repository's top folder (the library's), where `examples/` and
/// `tests/data/` are.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the command's package sits inside the repository")
}

/// Run the command with `args` in the repository's top folder, feeding it
/// `stdin`.
#[allow(dead_code)] // not every test binary that includes this module uses it
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    run_in(repo(), args, stdin)
}
