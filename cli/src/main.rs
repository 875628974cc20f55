//! The `tool-carrier` command: inspect, migrate, convert, media, import, models and mcp-proxy.
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    tool_carrier_cli::main()
}
