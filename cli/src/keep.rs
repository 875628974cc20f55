//! `--keep-images N`, `--evict-step K` and `--say-scale`: how many images
//! a request keeps, how the oldest go, and whether a resized one's scale
//! is said, for the commands that fit a file or a body in place (`fit`,
//! `gateway`).

use tool_carrier::provider::{Options, OptionsError};

use super::Failure;

#[derive(Debug, Clone, clap::Args)]
pub struct Keep {
    /// Keep only the N newest images; the older become a text saying what
    /// was there.
    #[arg(long, value_name = "N")]
    keep_images: Option<usize>,
    /// Once a limit leaves images out, leave them out K at a time: what
    /// comes before the newest left out then changes only every K turns,
    /// which keeps a provider's prompt cache.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    evict_step: u64,
    /// After each image made smaller, add a text part saying its scale
    /// ("scaled from 2880×1800 to 1389×868: multiply coordinates by
    /// 2.073"), so a computer-use model can give coordinates on the
    /// original screen.
    #[arg(long)]
    say_scale: bool,
}

impl Keep {
    /// `options` keeping what the flags say; contradicting flags refused,
    /// named as given.
    pub fn apply(&self, mut options: Options) -> Result<Options, Failure> {
        if let Some(n) = self.keep_images {
            options = options.with_keep_images(n);
        }
        let step = usize::try_from(self.evict_step).unwrap_or(usize::MAX);
        options = options.with_evict_step(step).with_say_scale(self.say_scale);
        options.check().map_err(contradiction)?;
        Ok(options)
    }
}

/// An options error named by the flags that set what contradicts.
pub fn contradiction(e: OptionsError) -> Failure {
    Failure::new(match e {
        OptionsError::StepOverKeep { step, keep, what } => format!(
            "--evict-step {step} is larger than --keep-{what}s {keep}: a step leaves {what}s out {step} at a time, more than are kept; use a step of at most {keep}"
        ),
        other => other.to_string(),
    })
}
