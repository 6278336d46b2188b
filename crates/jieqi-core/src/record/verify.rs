//! Verification of records: the deal against its commitment, every move's legality,
//! every stated identity against the deal, and the stated result against the rules.

use super::Record;
use crate::game::Judge;
use crate::{Deal, Game, GameError, Outcome, Position, Reveals, Role, Square};

/// Why a record failed verification.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VerifyReason {
    /// The deal does not hash to the published commitment.
    #[error("the deal does not match its commitment {commitment} with salt {salt:?}")]
    CommitmentMismatch {
        /// The commitment.
        commitment: String,
        /// The salt.
        salt: String,
    },
    /// A deal and a commitment but no salt to check them with.
    #[error("[DealCommitment] and [Deal] are given but [DealSalt] is missing")]
    MissingSalt,
    /// The deal does not fit the starting position's face-down pieces and pools.
    #[error("the deal does not fit the starting position: {0}")]
    DealMismatch(String),
    /// A revealed identity that the deal contradicts.
    #[error(
        "the face-down piece on {square} is a {truth} under the deal, the record says {stated}"
    )]
    RevealContradictsDeal {
        /// The mover's square.
        square: Square,
        /// The identity the record states.
        stated: Role,
        /// The identity under the deal.
        truth: Role,
    },
    /// A captured identity that the deal contradicts.
    #[error(
        "the face-down piece captured on {square} is a {truth} under the deal, the record says {stated}"
    )]
    CaptureContradictsDeal {
        /// The destination.
        square: Square,
        /// The identity the record states.
        stated: Role,
        /// The identity under the deal.
        truth: Role,
    },
    /// A face-down mover whose identity neither the record nor a deal gives.
    #[error("the face-down piece on {0} moves, but neither the move nor a [Deal] says what it is")]
    UnknownReveal(Square),
    /// The move cannot be played.
    #[error("{0}")]
    Illegal(String),
    /// A move after the rules had already ended the game.
    #[error("the game was already over: {0}")]
    AfterEnd(Outcome),
    /// The result stated is not what the rules decided.
    #[error("the record says {stated}, but the game ended: {outcome} ({})", .outcome.result_str())]
    WrongResult {
        /// The result stated.
        stated: String,
        /// The adjudicated outcome.
        outcome: Outcome,
    },
}

/// A failed verification: the ply at fault (0 for the header) and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {reason}", if *.ply == 0 { "header".to_string() } else { format!("ply {}", .ply) })]
pub struct VerifyError {
    /// The ply, 1-based; 0 for the tags (deal, commitment, start).
    pub ply: usize,
    /// Why.
    pub reason: VerifyReason,
}

/// What a successful verification checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyReport {
    /// Plies replayed.
    pub plies: usize,
    /// Whether a deal was present and every reveal checked against it.
    pub deal_checked: bool,
    /// Whether the deal was checked against a commitment.
    pub commitment_checked: bool,
    /// The outcome the rules decided, if the moves end the game.
    pub outcome: Option<Outcome>,
}

fn err(ply: usize, reason: VerifyReason) -> VerifyError {
    VerifyError { ply, reason }
}

/// Checks that every stated identity of the move agrees with the deal.
fn check_against_deal(
    pos: &Position,
    deal: &Deal,
    m: crate::Move,
    rv: Reveals,
    ply: usize,
) -> Result<(), VerifyError> {
    if let Some(stated) = rv.mover
        && pos.board().is_hidden(m.from)
        && let Some(truth) = deal.identity_at(m.from)
        && stated != truth
    {
        return Err(err(
            ply,
            VerifyReason::RevealContradictsDeal {
                square: m.from,
                stated,
                truth,
            },
        ));
    }
    if let Some(stated) = rv.captured
        && pos.board().is_hidden(m.to)
        && let Some(truth) = deal.identity_at(m.to)
        && stated != truth
    {
        return Err(err(
            ply,
            VerifyReason::CaptureContradictsDeal {
                square: m.to,
                stated,
                truth,
            },
        ));
    }
    Ok(())
}

/// Replays a record with its deal under a referee; stops at the first fault.
pub(crate) fn replay_game(rec: &Record, deal: Deal) -> Result<Game, VerifyError> {
    let mut game = Game::from_position(rec.start.clone(), deal, rec.rules).map_err(|e| {
        err(
            0,
            VerifyReason::DealMismatch(match e {
                GameError::DealMismatch(s) => s,
                other => other.to_string(),
            }),
        )
    })?;
    for (i, m) in rec.moves.iter().enumerate() {
        let ply = i + 1;
        check_against_deal(game.position(), &deal, m.mv, m.reveals, ply)?;
        if let Some(o) = game.outcome() {
            return Err(err(ply, VerifyReason::AfterEnd(o)));
        }
        game.play(m.mv).map_err(|e| match e {
            GameError::Over(o) => err(ply, VerifyReason::AfterEnd(o)),
            other => err(ply, VerifyReason::Illegal(other.to_string())),
        })?;
    }
    Ok(game)
}

pub(crate) fn verify(rec: &Record) -> Result<VerifyReport, VerifyError> {
    let mut commitment_checked = false;
    if let (Some(deal), Some(c)) = (&rec.deal, &rec.deal_commitment) {
        let salt = rec
            .deal_salt
            .as_ref()
            .ok_or_else(|| err(0, VerifyReason::MissingSalt))?;
        if !deal.verify_commitment(salt, c) {
            return Err(err(
                0,
                VerifyReason::CommitmentMismatch {
                    commitment: c.clone(),
                    salt: salt.clone(),
                },
            ));
        }
        commitment_checked = true;
    }
    let (plies, outcome, deal_checked) = match rec.deal {
        Some(deal) => {
            let game = replay_game(rec, deal)?;
            (game.plies().len(), game.outcome(), true)
        }
        None => {
            // Without a deal, reveals are taken as written; every other rule is judged
            // as the referee judges it.
            let mut pos = rec.start.clone();
            let mut judge = Judge::new(rec.rules, &pos);
            let mut outcome = judge.verdict(&pos);
            for (i, m) in rec.moves.iter().enumerate() {
                let ply = i + 1;
                if let Some(o) = outcome {
                    return Err(err(ply, VerifyReason::AfterEnd(o)));
                }
                if pos.board().is_hidden(m.mv.from) && m.reveals.mover.is_none() {
                    return Err(err(ply, VerifyReason::UnknownReveal(m.mv.from)));
                }
                let undo = pos
                    .play(m.mv, m.reveals)
                    .map_err(|e| err(ply, VerifyReason::Illegal(e.to_string())))?;
                judge.push(&pos, &undo);
                outcome = judge.verdict(&pos);
            }
            (rec.moves.len(), outcome, false)
        }
    };
    if let Some(o) = outcome
        && rec.result != o.result_str()
    {
        return Err(err(
            plies,
            VerifyReason::WrongResult {
                stated: rec.result.clone(),
                outcome: o,
            },
        ));
    }
    Ok(VerifyReport {
        plies,
        deal_checked,
        commitment_checked,
        outcome,
    })
}
