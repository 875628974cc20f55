//! What a model id says of its model: Bedrock's families, Gemini's
//! generations (kept at this path; the readers are
//! [`crate::facts::ids`]'s).

pub use crate::facts::ids::{
    bedrock_base_id, bedrock_family, gemini_3_or_later, gemini_generation, Family, UnknownFamily,
};
