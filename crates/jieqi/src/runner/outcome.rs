//! How a game ended, as the runner reports it: the core's [`Outcome`] (who won and
//! why, in `jieqi_core`'s one vocabulary) and, when the reason alone does not say what
//! happened, a detail beside it (which illegal move, why the engine died, the ply cap).

use jieqi_core::{Color, Outcome, Reason};

/// The end of a game: the core's outcome and the runner's detail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    /// Who won and why.
    pub outcome: Outcome,
    /// What exactly happened, where the reason does not say it: `illegal move a0a5: …`
    /// or `engine crashed: …` (both [`Reason::Forfeit`]), `ply cap`
    /// ([`Reason::Adjudication`]). Shown instead of the reason's own text.
    pub detail: Option<String>,
}

impl Ending {
    /// An end the outcome tells all about.
    pub fn new(outcome: Outcome) -> Ending {
        Ending {
            outcome,
            detail: None,
        }
    }

    /// A win for `winner`.
    pub fn win(winner: Color, reason: Reason) -> Ending {
        Ending::new(Outcome::Win { winner, reason })
    }

    /// A draw.
    pub fn draw(reason: Reason) -> Ending {
        Ending::new(Outcome::Draw { reason })
    }

    /// The same end with what exactly happened.
    pub fn with_detail(self, detail: impl Into<String>) -> Ending {
        Ending {
            detail: Some(detail.into()),
            ..self
        }
    }

    /// The Termination tag text, also the key of the match's termination counts.
    pub fn termination(&self) -> String {
        termination(&self.outcome, self.detail.as_deref())
    }
}

impl std::fmt::Display for Ending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        describe(f, &self.outcome, self.detail.as_deref())
    }
}

/// The Termination tag text of an end: the detail if there is one, else the reason's.
pub fn termination(outcome: &Outcome, detail: Option<&str>) -> String {
    if let Some(d) = detail {
        return d.to_string();
    }
    match outcome.reason() {
        Reason::Checkmate => "checkmate",
        Reason::Stalemate => "stalemate",
        // Without the piece: the termination counts group all perpetuals together.
        Reason::PerpetualCheck { .. } => "perpetual check",
        Reason::PerpetualChase { .. } => "perpetual chase",
        Reason::NoCapture => "80 plies without capture",
        Reason::Repetition => "threefold repetition",
        Reason::BareKings => "bare kings",
        Reason::Resignation => "resignation",
        Reason::Time => "time forfeit",
        Reason::Agreement => "agreement",
        Reason::Abandonment => "abandonment",
        Reason::Forfeit => "forfeit",
        Reason::Adjudication => "adjudication",
    }
    .to_string()
}

/// `1-0 Red wins by checkmate`, `1/2-1/2 draw by ply cap`.
pub fn describe(
    f: &mut impl std::fmt::Write,
    outcome: &Outcome,
    detail: Option<&str>,
) -> std::fmt::Result {
    let result = outcome.result_str();
    let how = termination(outcome, detail);
    match outcome.winner() {
        Some(c) => write!(f, "{result} {} wins by {how}", color_title(c)),
        None => write!(f, "{result} draw by {how}"),
    }
}

/// Red's score: 1, 0.5 or 0.
pub fn red_score(outcome: &Outcome) -> f64 {
    match outcome.winner() {
        Some(Color::Red) => 1.0,
        Some(Color::Black) => 0.0,
        None => 0.5,
    }
}

/// `Red` or `Black`.
pub fn color_title(c: Color) -> &'static str {
    match c {
        Color::Red => "Red",
        Color::Black => "Black",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jieqi_core::{Role, Square};

    #[test]
    fn terminations_read_as_before() {
        let e8 = Square::parse("e8").unwrap();
        for (ending, text, line) in [
            (
                Ending::win(Color::Red, Reason::Checkmate),
                "checkmate",
                "1-0 Red wins by checkmate",
            ),
            (
                Ending::win(
                    Color::Black,
                    Reason::PerpetualCheck {
                        role: Role::Rook,
                        square: e8,
                    },
                ),
                "perpetual check",
                "0-1 Black wins by perpetual check",
            ),
            (
                Ending::win(Color::Red, Reason::Time),
                "time forfeit",
                "1-0 Red wins by time forfeit",
            ),
            (
                Ending::draw(Reason::NoCapture),
                "80 plies without capture",
                "1/2-1/2 draw by 80 plies without capture",
            ),
            (
                Ending::win(Color::Black, Reason::Forfeit).with_detail("illegal move e0e2: no"),
                "illegal move e0e2: no",
                "0-1 Black wins by illegal move e0e2: no",
            ),
            (
                Ending::draw(Reason::Adjudication).with_detail("ply cap"),
                "ply cap",
                "1/2-1/2 draw by ply cap",
            ),
            (
                Ending::win(Color::Red, Reason::Forfeit),
                "forfeit",
                "1-0 Red wins by forfeit",
            ),
        ] {
            assert_eq!(ending.termination(), text);
            assert_eq!(ending.to_string(), line);
        }
    }

    #[test]
    fn scores() {
        assert_eq!(
            red_score(&Ending::win(Color::Red, Reason::Time).outcome),
            1.0
        );
        assert_eq!(
            red_score(&Ending::win(Color::Black, Reason::Time).outcome),
            0.0
        );
        assert_eq!(red_score(&Ending::draw(Reason::Agreement).outcome), 0.5);
    }
}
