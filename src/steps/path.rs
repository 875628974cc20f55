//! The JSON path a rule names, written out only when a rule names it.
//!
//! The rules walk every message and block of a body, and most bodies
//! break none of them. A path formatted for each node visited cost more
//! than the checks on a long history (an eighth of one more turn of a
//! 200-turn session went to formatting paths nobody read). A [`Path`] is
//! a chain of borrowed steps on the walker's stack; it becomes text when
//! a violation is pushed, as [`at`](super::rule::at) and
//! [`idx`](super::rule::idx) would have written it.

use std::fmt;

/// A JSON path: where it starts, then member keys and array indices.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Path<'p> {
    /// Where the path starts: `$`, or a path written out, such as
    /// `$.messages`.
    Root(&'static str),
    /// A member of the object at the path.
    Key(&'p Path<'p>, &'p str),
    /// An item of the array at the path.
    Index(&'p Path<'p>, usize),
}

/// The whole body: `$`.
pub(crate) const ROOT: Path<'static> = Path::Root("$");

impl<'p> Path<'p> {
    /// Member `key` of the object at this path.
    pub(crate) fn key<'q>(&'q self, key: &'q str) -> Path<'q>
    where
        'p: 'q,
    {
        Path::Key(self, key)
    }

    /// Item `i` of the array at this path.
    pub(crate) fn index<'q>(&'q self, i: usize) -> Path<'q>
    where
        'p: 'q,
    {
        Path::Index(self, i)
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Root(root) => f.write_str(root),
            Path::Key(parent, key) => write!(f, "{parent}.{key}"),
            Path::Index(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

impl From<Path<'_>> for String {
    fn from(path: Path<'_>) -> String {
        path.to_string()
    }
}

impl From<&Path<'_>> for String {
    fn from(path: &Path<'_>) -> String {
        path.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::rule::{at, idx};

    #[derive(Clone, Debug)]
    enum Step {
        Key(String),
        Index(usize),
    }

    fn step() -> impl proptest::strategy::Strategy<Value = Step> {
        use proptest::prelude::*;
        prop_oneof![
            "[a-z_.\\[\\]0-9]{0,8}".prop_map(Step::Key),
            any::<usize>().prop_map(Step::Index),
        ]
    }

    /// The path, a step at a time, each step borrowing the one before.
    fn written(steps: &[Step], parent: Path<'_>) -> String {
        let Some((first, rest)) = steps.split_first() else {
            return parent.to_string();
        };
        match first {
            Step::Key(k) => written(rest, parent.key(k)),
            Step::Index(i) => written(rest, parent.index(*i)),
        }
    }

    proptest::proptest! {
        /// A path is written as `at` and `idx` write it, step by step.
        #[test]
        fn a_path_is_written_as_at_and_idx_write_it(
            root in proptest::sample::select(vec!["$", "$.messages", "$.tools"]),
            steps in proptest::collection::vec(step(), 0..12),
        ) {
            let mut expected = root.to_owned();
            for s in &steps {
                expected = match s {
                    Step::Key(k) => at(&expected, k),
                    Step::Index(i) => idx(&expected, *i),
                };
            }
            proptest::prop_assert_eq!(written(&steps, Path::Root(root)), expected);
        }
    }

    #[test]
    fn a_path_into_a_string() {
        let messages = ROOT.key("messages");
        let block = messages.index(3);
        let content = block.key("content");
        assert_eq!(String::from(content), "$.messages[3].content");
        assert_eq!(String::from(&Path::Root("$.tools").index(0)), "$.tools[0]");
    }
}
