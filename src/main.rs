//! The `tool-carrier` command: inspect, migrate, convert and media.
#![forbid(unsafe_code)]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
