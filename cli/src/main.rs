//! The `tool-carrier` command: inspect, migrate, convert and media.
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    tool_carrier_cli::main()
}
