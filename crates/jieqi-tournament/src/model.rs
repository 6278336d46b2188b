//! The plain data of an event: everything that is saved to a file.

use jieqi_core::{Color, Outcome};
use serde::{Deserialize, Serialize};

use crate::PlayerId;
use crate::deals::DealMode;
use crate::swiss::Relaxation;

/// A participant (a person or an engine).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// Unique name.
    pub name: String,
    /// Rating, if known (higher is stronger).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<u32>,
    /// Organiser's seed (1 = top), ahead of ratings in the ranking list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u32>,
    /// UCI engine command line, for engine events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// Withdrawn players are no longer paired.
    #[serde(default)]
    pub withdrawn: bool,
}

impl Player {
    /// A player with only a name.
    pub fn named(name: &str) -> Player {
        Player {
            name: name.to_string(),
            rating: None,
            seed: None,
            engine: None,
            withdrawn: false,
        }
    }
}

/// A game's result.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    /// Red won.
    #[serde(rename = "1-0")]
    RedWin,
    /// Black won.
    #[serde(rename = "0-1")]
    BlackWin,
    /// Draw.
    #[serde(rename = "1/2")]
    Draw,
    /// Red won by forfeit (Black did not play).
    #[serde(rename = "+-")]
    RedForfeitWin,
    /// Black won by forfeit.
    #[serde(rename = "-+")]
    BlackForfeitWin,
    /// Neither played; no points.
    #[serde(rename = "--")]
    DoubleForfeit,
}

impl GameResult {
    /// Parses `1-0`, `0-1`, `1/2` (or `½`, `=`, `1/2-1/2`), `+-`, `-+`, `--`.
    pub fn parse(s: &str) -> Option<GameResult> {
        Some(match s.trim() {
            "1-0" => GameResult::RedWin,
            "0-1" => GameResult::BlackWin,
            "1/2" | "½" | "=" | "1/2-1/2" | "½-½" => GameResult::Draw,
            "+-" | "+:-" => GameResult::RedForfeitWin,
            "-+" | "-:+" => GameResult::BlackForfeitWin,
            "--" | "-:-" => GameResult::DoubleForfeit,
            _ => return None,
        })
    }

    /// The short text form.
    pub fn text(self) -> &'static str {
        match self {
            GameResult::RedWin => "1-0",
            GameResult::BlackWin => "0-1",
            GameResult::Draw => "1/2",
            GameResult::RedForfeitWin => "+-",
            GameResult::BlackForfeitWin => "-+",
            GameResult::DoubleForfeit => "--",
        }
    }

    /// Half points of (Red, Black).
    pub fn half_points(self) -> (u32, u32) {
        match self {
            GameResult::RedWin | GameResult::RedForfeitWin => (2, 0),
            GameResult::BlackWin | GameResult::BlackForfeitWin => (0, 2),
            GameResult::Draw => (1, 1),
            GameResult::DoubleForfeit => (0, 0),
        }
    }

    /// Whether the game was actually played over the board.
    pub fn played(self) -> bool {
        matches!(
            self,
            GameResult::RedWin | GameResult::BlackWin | GameResult::Draw
        )
    }

    /// A win by forfeit for `winner`: the other side did not play (`+-`, `-+`).
    pub fn forfeit_win(winner: Color) -> GameResult {
        match winner {
            Color::Red => GameResult::RedForfeitWin,
            Color::Black => GameResult::BlackForfeitWin,
        }
    }
}

/// The result of a game played over the board, from how the referee ended it: the
/// winner's win or a draw. Why it ended (checkmate, time, …) stays in the outcome.
impl From<&Outcome> for GameResult {
    fn from(o: &Outcome) -> GameResult {
        match o.winner() {
            Some(Color::Red) => GameResult::RedWin,
            Some(Color::Black) => GameResult::BlackWin,
            None => GameResult::Draw,
        }
    }
}

/// Which game of which knockout match a game is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchRef {
    /// Stage index (0 = first knockout round).
    pub stage: usize,
    /// Match index within the stage.
    pub index: usize,
    /// Game number within the match, from 1.
    pub game: u32,
}

/// One board of a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    /// Red's player.
    pub red: PlayerId,
    /// Black's player.
    pub black: PlayerId,
    /// The result, once known.
    #[serde(default)]
    pub result: Option<GameResult>,
    /// Index into the event's deals.
    #[serde(default)]
    pub deal: Option<usize>,
    /// The knockout match this game belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knockout: Option<MatchRef>,
}

/// What kind of round.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Phase {
    /// A Swiss round.
    Swiss,
    /// A round-robin round of the given cycle (1 or 2).
    RoundRobin {
        /// Cycle, from 1.
        cycle: u32,
    },
    /// One game of every undecided match of a knockout stage.
    Knockout {
        /// Stage index.
        stage: usize,
    },
}

/// One round (one call of `pair`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Round {
    /// Swiss, round robin or knockout.
    pub phase: Phase,
    /// How its deals were made.
    pub deal_mode: DealMode,
    /// The boards.
    pub games: Vec<Game>,
    /// The player who sits out (Swiss and round robin with an odd field).
    #[serde(default)]
    pub bye: Option<PlayerId>,
    /// Which pairing rule had to give, if any (Swiss).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relaxed: Option<Relaxation>,
}

impl Round {
    /// Whether some result has been entered (the round has started).
    pub fn started(&self) -> bool {
        self.games.iter().any(|g| g.result.is_some())
    }

    /// Whether every game has a result.
    pub fn complete(&self) -> bool {
        self.games.iter().all(|g| g.result.is_some())
    }

    /// Whether this is a Swiss or round-robin round (counts for the standings).
    pub fn is_table(&self) -> bool {
        !matches!(self.phase, Phase::Knockout { .. })
    }
}

/// What a tied knockout match does after its regular games.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum TieBreakGame {
    /// One more game; a draw counts as a win for Black (the colours keep alternating,
    /// so after an odd number of games the higher seed has Black).
    #[default]
    Armageddon,
    /// More games, colours alternating, until one is decisive.
    SuddenDeath,
    /// No more games: the higher seed goes through.
    HigherSeed,
}

/// How knockout matches are played.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnockoutConfig {
    /// Games per match (best of N); the higher seed has Red in odd games.
    pub best_of: u32,
    /// What happens when the match is tied after `best_of` games.
    #[serde(default)]
    pub tie_break: TieBreakGame,
    /// Whether the semi-final losers play for third place.
    #[serde(default)]
    pub third_place: bool,
}

/// The shape of the event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Format {
    /// A Swiss event of `rounds` rounds.
    Swiss {
        /// Rounds.
        rounds: u32,
    },
    /// Round robin, `cycles` times (2 = double round robin, colours reversed).
    RoundRobin {
        /// 1 or 2.
        cycles: u32,
    },
    /// Single elimination seeded by the ranking list.
    Knockout(KnockoutConfig),
    /// Swiss rounds, then the top `qualifiers` by Swiss standings into a knockout
    /// (the seed-002 format).
    SwissKnockout {
        /// Swiss rounds.
        swiss_rounds: u32,
        /// How many go through (a power of two gives a full bracket).
        qualifiers: u32,
        /// The knockout's matches.
        knockout: KnockoutConfig,
    },
}

impl Format {
    /// The 2011 Hong Kong 中弈杯 format (seed 002): six Swiss rounds, then the top eight
    /// into best-of-three matches (1–8, 4–5, 2–7, 3–6), with a third-place match for
    /// 季军 and 殿军.
    pub fn hong_kong_2011() -> Format {
        Format::SwissKnockout {
            swiss_rounds: 6,
            qualifiers: 8,
            knockout: KnockoutConfig {
                best_of: 3,
                tie_break: TieBreakGame::Armageddon,
                third_place: true,
            },
        }
    }

    /// The knockout part, if any.
    pub fn knockout(&self) -> Option<&KnockoutConfig> {
        match self {
            Format::Knockout(k) | Format::SwissKnockout { knockout: k, .. } => Some(k),
            _ => None,
        }
    }
}

/// A tie-break of the standings.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TieBreak {
    /// Sum of the opponents' scores.
    Buchholz,
    /// Buchholz without the best and the worst opponent (with three or more).
    MedianBuchholz,
    /// Sum of beaten opponents' scores plus half the drawn opponents' scores.
    SonnebornBerger,
    /// Rounds won (including forfeits and full-point byes).
    Wins,
    /// Points scored among the tied players, if they have all met.
    DirectEncounter,
}

impl TieBreak {
    /// Parses `buchholz`/`bh`, `median`/`median-buchholz`, `sb`/`sonneborn-berger`,
    /// `wins`, `de`/`direct-encounter`.
    pub fn parse(s: &str) -> Option<TieBreak> {
        Some(match s.trim().to_ascii_lowercase().as_str() {
            "buchholz" | "bh" => TieBreak::Buchholz,
            "median" | "median-buchholz" | "mbh" => TieBreak::MedianBuchholz,
            "sb" | "sonneborn-berger" | "sonneborn" => TieBreak::SonnebornBerger,
            "wins" | "win" => TieBreak::Wins,
            "de" | "direct-encounter" | "direct" => TieBreak::DirectEncounter,
            _ => return None,
        })
    }

    /// A short column heading.
    pub fn short(self) -> &'static str {
        match self {
            TieBreak::Buchholz => "BH",
            TieBreak::MedianBuchholz => "MBH",
            TieBreak::SonnebornBerger => "SB",
            TieBreak::Wins => "W",
            TieBreak::DirectEncounter => "DE",
        }
    }

    /// The default order: Buchholz, median Buchholz, Sonneborn-Berger, wins, direct
    /// encounter.
    pub fn default_order() -> Vec<TieBreak> {
        vec![
            TieBreak::Buchholz,
            TieBreak::MedianBuchholz,
            TieBreak::SonnebornBerger,
            TieBreak::Wins,
            TieBreak::DirectEncounter,
        ]
    }
}

/// Event settings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// Swiss, round robin, knockout or Swiss then knockout.
    pub format: Format,
    /// Default deal mode of each round (a round may override it).
    #[serde(default)]
    pub deal_mode: DealMode,
    /// Tie-breaks in order.
    #[serde(default = "TieBreak::default_order")]
    pub tiebreaks: Vec<TieBreak>,
    /// Half points for a bye (2 = a full point).
    #[serde(default = "two")]
    pub bye_half_points: u32,
}

fn two() -> u32 {
    2
}

impl Settings {
    /// Settings with the default deal mode, tie-breaks and a full-point bye.
    pub fn new(format: Format) -> Settings {
        Settings {
            format,
            deal_mode: DealMode::Random,
            tiebreaks: TieBreak::default_order(),
            bye_half_points: 2,
        }
    }
}

/// Kind of a knockout match.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchKind {
    /// A bracket match (the winner goes on).
    Main,
    /// The match for third place.
    ThirdPlace,
}

/// A knockout match between two seeds (or a seed and a bye).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Match {
    /// Main or third place.
    pub kind: MatchKind,
    /// The higher seed.
    pub high: PlayerId,
    /// The lower seed; `None` is a bye (the higher seed goes through).
    pub low: Option<PlayerId>,
}

/// One knockout stage (quarter-finals, semi-finals, …).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stage {
    /// Its matches, in bracket order (a third-place match last).
    pub matches: Vec<Match>,
}

/// The knockout bracket.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Bracket {
    /// Entrants in seed order (index 0 = seed 1).
    pub entrants: Vec<PlayerId>,
    /// Stages created so far.
    pub stages: Vec<Stage>,
}

impl Bracket {
    /// The 1-based seed of a player, if he is in the bracket.
    pub fn seed_of(&self, p: PlayerId) -> Option<u32> {
        self.entrants
            .iter()
            .position(|&e| e == p)
            .map(|i| i as u32 + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jieqi_core::Reason;

    #[test]
    fn a_played_game_scores_as_its_outcome() {
        for (outcome, result) in [
            (
                Outcome::Win {
                    winner: Color::Red,
                    reason: Reason::Checkmate,
                },
                GameResult::RedWin,
            ),
            (
                Outcome::Win {
                    winner: Color::Black,
                    reason: Reason::Forfeit,
                },
                GameResult::BlackWin,
            ),
            (
                Outcome::Draw {
                    reason: Reason::Repetition,
                },
                GameResult::Draw,
            ),
        ] {
            let r = GameResult::from(&outcome);
            assert_eq!(r, result, "{outcome}");
            assert!(r.played());
            let red = match outcome.result_str() {
                "1-0" => 2,
                "0-1" => 0,
                _ => 1,
            };
            assert_eq!(r.half_points(), (red, 2 - red), "{outcome}");
        }
    }

    #[test]
    fn forfeit_wins_are_not_played() {
        assert_eq!(
            GameResult::forfeit_win(Color::Red),
            GameResult::RedForfeitWin
        );
        assert_eq!(
            GameResult::forfeit_win(Color::Black),
            GameResult::BlackForfeitWin
        );
        assert!(!GameResult::forfeit_win(Color::Red).played());
    }
}

/// What a round is called: its number in the table phase, its knockout stage's name
/// after ("Round 3", "Quarter-final", "Semi-final", "Final").
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RoundName {
    /// A Swiss or round-robin round, by its number (from 1).
    Table(usize),
    /// A game of a knockout stage with this many bracket matches (1 is the final).
    Stage(usize),
}

impl RoundName {
    /// The name in English.
    pub fn english(self) -> String {
        match self {
            RoundName::Table(n) => format!("Round {n}"),
            RoundName::Stage(0) => "Knockout".into(),
            RoundName::Stage(1) => "Final".into(),
            RoundName::Stage(2) => "Semi-final".into(),
            RoundName::Stage(4) => "Quarter-final".into(),
            RoundName::Stage(m) => format!("Last {}", 2 * m),
        }
    }

    /// The name in Chinese (第 3 轮、四分之一决赛、半决赛、决赛).
    pub fn chinese(self) -> String {
        match self {
            RoundName::Table(n) => format!("第 {n} 轮"),
            RoundName::Stage(0) => "淘汰赛".into(),
            RoundName::Stage(1) => "决赛".into(),
            RoundName::Stage(2) => "半决赛".into(),
            RoundName::Stage(4) => "四分之一决赛".into(),
            RoundName::Stage(m) => format!("{} 强赛", 2 * m),
        }
    }
}

impl std::fmt::Display for RoundName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.english())
    }
}

impl Bracket {
    /// The name of knockout stage `stage` (from 0), by its number of bracket matches.
    pub fn stage_name(&self, stage: usize) -> RoundName {
        let mains = self.stages.get(stage).map_or(0, |s| {
            s.matches
                .iter()
                .filter(|m| m.kind == MatchKind::Main)
                .count()
        });
        RoundName::Stage(mains)
    }
}
