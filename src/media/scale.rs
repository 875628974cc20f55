//! The scale of an image sent smaller than it came: what a computer-use
//! agent needs to map the model's coordinates back to its screen. Said by
//! the MCP proxy (in `_meta`, and in a text if asked) and by `fit` (in a
//! text beside the image, if asked).

use super::MediaFacts;

/// An image's size as it came and as it is sent.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scale {
    pub(crate) from: (u32, u32),
    pub(crate) to: (u32, u32),
}

impl Scale {
    /// The scale between `from` and `to`, when both have pixels and the
    /// image was made smaller.
    pub(crate) fn of(from: &MediaFacts, to: &MediaFacts) -> Option<Scale> {
        let from = (from.width?, from.height?);
        let to = (to.width?, to.height?);
        (to.0 > 0 && to.1 > 0 && (to.0 < from.0 || to.1 < from.1)).then_some(Scale { from, to })
    }

    /// What a coordinate in the sent image is multiplied by to be one in
    /// the original (the width's ratio; the aspect is kept).
    pub(crate) fn factor(&self) -> f64 {
        f64::from(self.from.0) / f64::from(self.to.0)
    }

    /// The sentence for the model: "scaled from 2880×1800 to 1389×868:
    /// multiply coordinates by 2.073".
    pub(crate) fn text(&self) -> String {
        format!(
            "scaled from {}×{} to {}×{}: multiply coordinates by {:.3}",
            self.from.0,
            self.from.1,
            self.to.0,
            self.to.1,
            self.factor()
        )
    }
}

/// A PNG of `width` × `height`, for the tests of what says a scale.
#[cfg(test)]
pub(crate) fn sized(width: u32, height: u32) -> MediaFacts {
    MediaFacts {
        media_type: super::MediaType::Png,
        bytes: 1,
        width: Some(width),
        height: Some(height),
    }
}

#[cfg(test)]
mod tests {
    use super::{sized as facts, *};

    #[test]
    fn only_an_image_made_smaller_has_a_scale() {
        let scale = Scale::of(&facts(2880, 1800), &facts(1389, 868)).unwrap();
        assert_eq!(
            scale.text(),
            "scaled from 2880×1800 to 1389×868: multiply coordinates by 2.073"
        );
        assert!(Scale::of(&facts(100, 50), &facts(100, 50)).is_none());
        assert!(Scale::of(&facts(100, 50), &facts(0, 0)).is_none());
        assert!(Scale::of(&facts(100, 50), &facts(200, 100)).is_none());
    }
}
