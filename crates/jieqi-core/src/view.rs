//! Views: what one viewer may know of a game (RULES.md §4).
//!
//! Everyone sees the board and every reveal. The identity of a captured face-down piece
//! is known to the referee, and to others per [`CapturedIdentity`]. The deal is known to
//! the referee, and to everyone once the game is over.

use crate::game::{Game, Ply};
use crate::{Color, Deal, Material, Position, Reveals, UciMove};

/// Who learns the identity of a captured face-down piece (RULES.md §4 option
/// `captured_identity`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum CapturedIdentity {
    /// The capturing player (and the referee); the default.
    #[default]
    Capturer,
    /// Only the referee (the strict tournament rule).
    Nobody,
    /// Everyone.
    Everyone,
}

impl CapturedIdentity {
    /// Parses `capturer`, `nobody`, `everyone`.
    pub fn parse(s: &str) -> Option<CapturedIdentity> {
        match s.to_ascii_lowercase().as_str() {
            "capturer" => Some(CapturedIdentity::Capturer),
            "nobody" => Some(CapturedIdentity::Nobody),
            "everyone" => Some(CapturedIdentity::Everyone),
            _ => None,
        }
    }

    /// The option's text value.
    pub fn name(self) -> &'static str {
        match self {
            CapturedIdentity::Capturer => "capturer",
            CapturedIdentity::Nobody => "nobody",
            CapturedIdentity::Everyone => "everyone",
        }
    }
}

/// Who is looking.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Viewer {
    /// A player.
    Player(Color),
    /// Anyone else watching.
    Spectator,
    /// The referee (server, record): knows everything.
    Referee,
}

impl Viewer {
    /// Red's player.
    pub const RED: Viewer = Viewer::Player(Color::Red);
    /// Black's player.
    pub const BLACK: Viewer = Viewer::Player(Color::Black);
}

/// One viewer's knowledge of a game. Everything it returns is safe to show that viewer.
#[derive(Clone, Copy)]
pub struct View<'a> {
    game: &'a Game,
    viewer: Viewer,
}

impl<'a> View<'a> {
    pub(crate) fn new(game: &'a Game, viewer: Viewer) -> View<'a> {
        View { game, viewer }
    }

    /// Who is looking.
    pub fn viewer(&self) -> Viewer {
        self.viewer
    }

    /// Whether this viewer learns the identity captured in `ply`.
    pub fn knows_capture(&self, ply: &Ply) -> bool {
        if !ply.captured_hidden() {
            return true;
        }
        match (self.viewer, self.game.rules().captured_identity) {
            (Viewer::Referee, _) => true,
            (_, CapturedIdentity::Everyone) => true,
            (_, CapturedIdentity::Nobody) => false,
            (Viewer::Player(c), CapturedIdentity::Capturer) => c == ply.color,
            (Viewer::Spectator, CapturedIdentity::Capturer) => false,
        }
    }

    /// The reveals of `ply` as this viewer may see them.
    pub fn reveals(&self, ply: &Ply) -> Reveals {
        Reveals {
            mover: ply.reveals.mover,
            captured: if self.knows_capture(ply) {
                ply.reveals.captured
            } else {
                None
            },
        }
    }

    /// The current position as this viewer knows it: captured face-down identities it
    /// may not know stay in its pool.
    pub fn position(&self) -> Position {
        self.position_after(self.game.plies().len())
    }

    /// The position after `n` plies as this viewer knows it.
    pub fn position_after(&self, n: usize) -> Position {
        let mut pos = self.game.start().clone();
        for ply in &self.game.plies()[..n.min(self.game.plies().len())] {
            pos.play_unchecked(ply.mv, self.reveals(ply));
        }
        pos
    }

    /// The current FEN for this viewer.
    pub fn fen(&self) -> String {
        self.position().fen()
    }

    /// The start FEN (public).
    pub fn start_fen(&self) -> String {
        self.game.start().fen()
    }

    /// The moves as this viewer may see them, with suffix letters.
    pub fn moves(&self) -> Vec<UciMove> {
        let mut pos = self.game.start().clone();
        self.game
            .plies()
            .iter()
            .map(|ply| {
                let rv = self.reveals(ply);
                let u = UciMove::from_move(&pos, ply.mv, rv);
                pos.play_unchecked(ply.mv, rv);
                u
            })
            .collect()
    }

    /// The pools as this viewer knows them.
    pub fn pools(&self) -> Material {
        *self.position().pool()
    }

    /// The deal, if this viewer may know it: the referee always, everyone after the end.
    pub fn deal(&self) -> Option<&'a Deal> {
        (self.viewer == Viewer::Referee || self.game.outcome().is_some()).then(|| self.game.deal())
    }
}
