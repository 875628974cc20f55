//! The role of a history message.

use std::fmt;

/// Who a history message is from. Roles are compared exactly
/// (case-sensitive), as the carrier grammar compares them.
///
/// ```
/// use tool_carrier::Role;
///
/// assert_eq!(Role::parse("tool"), Role::Tool);
/// assert_eq!(Role::parse("Tool"), Role::Other("Tool"));
/// assert_eq!(Role::parse("developer").as_str(), "developer");
/// assert!(Role::parse("user").may_carry());
/// assert!(!Role::parse("assistant").may_carry());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role<'a> {
    /// `system`.
    System,
    /// `developer` (OpenAI's name for system instructions).
    Developer,
    /// `user`: may hold a prompt-mode carrier.
    User,
    /// `assistant`: may hold a tool-call envelope.
    Assistant,
    /// `tool`: always a native carrier (declared or legacy).
    Tool,
    /// Any other role, as written.
    Other(&'a str),
}

impl<'a> Role<'a> {
    /// The role named `name`.
    pub fn parse(name: &'a str) -> Role<'a> {
        match name {
            "system" => Role::System,
            "developer" => Role::Developer,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            other => Role::Other(other),
        }
    }

    /// The role's name, as in a history.
    pub fn as_str(self) -> &'a str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Other(name) => name,
        }
    }

    /// Whether a message of this role can be a tool-result carrier
    /// (`tool`: native; `user`: prompt-mode).
    pub fn may_carry(self) -> bool {
        matches!(self, Role::Tool | Role::User)
    }
}

impl fmt::Display for Role<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_round_trips() {
        for name in [
            "system",
            "developer",
            "user",
            "assistant",
            "tool",
            "function",
            "",
        ] {
            assert_eq!(Role::parse(name).as_str(), name);
        }
    }
}
