//! What a room tells each viewer: the `ClientOut` messages, built from that viewer's
//! own position (docs/protocol.md §3.3).

use std::cell::RefCell;

use jieqi_core::{Color, Viewer};

use super::{Effect, PerViewer, Room, Status, invite_url};
use crate::knowledge::{
    self, EndOut, LegalOut, PlyOut, SeatOut, VIEWERS, ViewerPositions, viewer_index,
};
use crate::protocol::out::{
    ClockOut, DrawOut, FirstMoveOut, MoveOut, PresenceOut, RematchOut, RulesOut, StateOut,
    TakebackOut, TakebackStateOut, TimeOut,
};
use crate::protocol::{ClientOut, Outgoing};

use super::Now;

/// The FEN of each kind of viewer's position, written once per distinct position: the
/// players' and the spectators' positions are the same but for what each knows of
/// captured face-down pieces, so one move's messages mostly share one FEN.
#[derive(Default)]
pub(super) struct Fens(RefCell<[Option<String>; 3]>);

impl Fens {
    /// The FEN of viewer `v`'s position in `views`.
    pub(super) fn of(&self, views: &ViewerPositions, v: Viewer) -> String {
        let pos = views.get(v);
        let mut written = self.0.borrow_mut();
        let same = written
            .iter()
            .zip(VIEWERS)
            .find_map(|(f, w)| f.as_ref().filter(|_| views.get(w) == pos));
        if let Some(f) = same {
            return f.clone();
        }
        let f = pos.fen();
        written[viewer_index(v)] = Some(f.clone());
        f
    }
}

impl Room {
    /// Sends each connection the message built for its kind of viewer (built once per
    /// kind, and only for the kinds connected).
    pub(super) fn broadcast_with(&mut self, build: impl Fn(&Room, Viewer) -> ClientOut) {
        let mut per = PerViewer::default();
        for v in self.conns.values() {
            let i = viewer_index(*v);
            if per.0[i].is_none() {
                per.0[i] = Some(Outgoing::new(self.version, build(self, VIEWERS[i])));
            }
        }
        if per.0.iter().any(Option::is_some) {
            self.out.push(Effect::Broadcast(per));
        }
    }

    fn clock_out(&self, now: Now) -> Option<ClockOut> {
        let c = self.clock.as_ref()?;
        Some(ClockOut {
            red_ms: c.left(Color::Red, now.at),
            black_ms: c.left(Color::Black, now.at),
            running: c.running().map(Color::name),
            move_left_ms: c.move_left(now.at),
        })
    }

    /// The first-move countdown, while a person's first move is awaited.
    fn first_move_out(&self, now: Now) -> Option<FirstMoveOut> {
        let due = self.first_move_deadline()?;
        Some(FirstMoveOut {
            color: self.game.turn().name(),
            left_ms: due.saturating_duration_since(now.at).as_millis() as u64,
        })
    }

    /// Whether viewer `v` may abort now.
    fn abortable_by(&self, v: Viewer) -> bool {
        matches!(v, Viewer::Player(_)) && self.abortable()
    }

    fn players_out(&self, now: Now) -> knowledge::ByColorOut<SeatOut> {
        let seat = |c: Color| {
            let s = &self.seats[c];
            let connected = s.engine.is_some() || self.seat_connected(c);
            SeatOut {
                kind: if s.engine.is_some() {
                    "engine"
                } else {
                    "human"
                },
                level: s.engine,
                name: s.user.clone(),
                joined: s.joined,
                connected,
                away_ms: if connected {
                    None
                } else {
                    self.away_since[c]
                        .map(|t| now.at.saturating_duration_since(t).as_millis() as u64)
                },
            }
        };
        knowledge::ByColorOut {
            red: seat(Color::Red),
            black: seat(Color::Black),
        }
    }

    fn spectators(&self) -> usize {
        self.conns
            .values()
            .filter(|v| **v == Viewer::Spectator)
            .count()
    }

    fn legal_for(&self, v: Viewer) -> LegalOut {
        match v {
            Viewer::Player(c) if self.status == Status::Live && self.game.turn() == c => {
                LegalOut::of(self.views.get(v))
            }
            _ => LegalOut::none(),
        }
    }

    /// The invite link, for the creating seat of a friend game while it waits for the
    /// friend (nobody else ever gets it: it claims the other seat).
    fn invite_url_for(&self, v: Viewer) -> Option<String> {
        let invite = self.invite?;
        let token = self.invite_token.as_deref()?;
        (self.status == Status::Waiting
            && v == Viewer::Player(!invite)
            && !self.seats[invite].joined)
            .then(|| invite_url(&self.id, token))
    }

    /// Whose knowledge the move list of viewer `v` is written with: its own while the
    /// game runs (a face-down piece taken from it reads 「吃暗」), everyone's once the
    /// game is over and the deal public, so every capture then names what was taken.
    fn moves_viewer(&self, v: Viewer) -> Viewer {
        if self.status == Status::Finished && !self.private && self.game.outcome().is_some() {
            Viewer::Referee
        } else {
            v
        }
    }

    /// The `state` for viewer `v`.
    pub fn state_out(&self, v: Viewer, now: Now) -> ClientOut {
        let pos = self.views.get(v);
        let rules = self.game.rules();
        ClientOut::State(Box::new(StateOut {
            game: self.id.clone(),
            you: knowledge::viewer_name(v),
            status: self.status.name(),
            rules: RulesOut {
                name: rules.name,
                chase_rule: rules.chase_rule,
                captured_identity: rules.captured_identity.name(),
            },
            time: self.tc.map(|t| TimeOut {
                base_ms: t.base_ms,
                increment_ms: t.increment_ms,
                move_ms: t.move_ms,
            }),
            players: self.players_out(now),
            rated: self.rated,
            abandon_ms: self.abandon_ms,
            spectators: self.spectators(),
            commitment: self.commitment.clone(),
            invite_url: self.invite_url_for(v),
            start_fen: self.game.start().fen(),
            moves: knowledge::plies_for(&self.game, self.moves_viewer(v), &self.metas),
            fen: pos.fen(),
            turn: pos.turn().name(),
            check: pos.is_check(),
            pools: knowledge::pools_out(pos),
            legal: self.legal_for(v),
            clock: self.clock_out(now),
            draw_offer: self.draw_offer.map(Color::name),
            takeback: TakebackStateOut {
                allowed: self.takebacks_allowed(),
                offer: self.takeback_offer.map(Color::name),
                plies: self
                    .takeback_offer
                    .and_then(|c| self.takeback_plies(c).ok())
                    .map(|k| k as u32),
            },
            rematch: (self.status == Status::Finished
                && (self.rematch.is_some()
                    || self.rematch_offers.red
                    || self.rematch_offers.black))
                .then(|| self.rematch_out(v)),
            end: self.end_out(),
            abortable: self.abortable_by(v),
            first_move: self.first_move_out(now),
            chat: self.chat_state(v),
        }))
    }

    pub(super) fn move_out(&self, v: Viewer, ply: PlyOut, fens: &Fens, now: Now) -> ClientOut {
        let pos = self.views.get(v);
        ClientOut::Move(Box::new(MoveOut {
            ply,
            fen: fens.of(&self.views, v),
            turn: pos.turn().name(),
            check: pos.is_check(),
            pools: knowledge::pools_out(pos),
            legal: self.legal_for(v),
            clock: self.clock_out(now),
            status: self.status.name(),
            draw_offer: self.draw_offer.map(Color::name),
            abortable: self.abortable_by(v),
            first_move: self.first_move_out(now),
        }))
    }

    pub(super) fn rematch_out(&self, v: Viewer) -> RematchOut {
        let offered_by = Color::ALL
            .into_iter()
            .filter(|&c| self.rematch_offers[c])
            .map(Color::name)
            .collect();
        match &self.rematch {
            None => RematchOut {
                offered_by,
                game: None,
                url: None,
            },
            Some(r) => {
                let url = match v {
                    Viewer::Player(c) if !r.tokens[c].is_empty() => {
                        format!("/game/{}?seat={}", r.id, r.tokens[c])
                    }
                    _ => format!("/game/{}", r.id),
                };
                RematchOut {
                    offered_by,
                    game: Some(r.id.clone()),
                    url: Some(url),
                }
            }
        }
    }

    /// The end of the game as the players may see it now: a tournament game whose deal
    /// is still in play elsewhere holds the deal back until the event publishes it.
    fn end_out(&self) -> Option<EndOut> {
        let end = if self.aborted {
            knowledge::aborted_end_out(&self.game, &self.salt, &self.commitment)
        } else {
            knowledge::end_out(&self.game, &self.salt, &self.commitment)?
        };
        Some(if self.private { end.withhold() } else { end })
    }

    pub(super) fn broadcast_end(&mut self) {
        let Some(end) = self.end_out() else {
            return;
        };
        let Some(o) = self.game.outcome() else {
            // Aborted: no result, so nobody listening for results hears of it.
            tracing::info!(game = %self.id, plies = self.game.plies().len(), "game aborted");
            self.broadcast_with(|_, _| ClientOut::End(Box::new(end.clone())));
            return;
        };
        tracing::info!(
            game = %self.id,
            result = o.result_str(),
            reason = o.reason().name(),
            plies = self.game.plies().len(),
            "game finished"
        );
        self.broadcast_with(|_, _| ClientOut::End(Box::new(end.clone())));
        self.out.push(Effect::Ended(o));
    }

    /// Everyone hears of a takeback request (`offer`: who, how many plies), its
    /// refusal, or the plies just taken back.
    pub(super) fn takeback_event(
        &mut self,
        offer: Option<(Color, usize)>,
        declined_by: Option<Color>,
        taken_back: Option<u32>,
    ) {
        self.version += 1;
        let d = TakebackOut {
            offer: offer.map(|(c, _)| c.name()),
            plies: offer.map(|(_, k)| k as u32),
            declined_by: declined_by.map(Color::name),
            taken_back,
        };
        self.broadcast_with(|_, _| ClientOut::Takeback(d.clone()));
    }

    pub(super) fn draw_event(&mut self, offer: Option<Color>, declined_by: Option<Color>) {
        self.version += 1;
        let d = DrawOut {
            offer: offer.map(Color::name),
            declined_by: declined_by.map(Color::name),
        };
        self.broadcast_with(|_, _| ClientOut::Draw(d.clone()));
    }

    pub(super) fn broadcast_presence(&mut self, now: Now) {
        let p = PresenceOut {
            players: self.players_out(now),
            spectators: self.spectators(),
        };
        self.broadcast_with(|_, _| ClientOut::Presence(p.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::PlyMeta;
    use jieqi_core::{Deal, Game, RuleSet};

    /// Each viewer gets the FEN of its own position: shared while the positions are
    /// the same, apart once a face-down piece is captured (only the capturer knows
    /// which piece it was), whichever viewer is written first.
    #[test]
    fn each_viewer_gets_its_own_positions_fen() {
        let mut g = Game::new(Deal::standard(), RuleSet::STANDARD);
        let mut vp = ViewerPositions::of(&g);
        let meta = PlyMeta {
            at_ms: 1,
            clock_ms: None,
        };
        let check = |vp: &ViewerPositions, order: [Viewer; 3]| {
            let fens = Fens::default();
            for v in order {
                assert_eq!(fens.of(vp, v), vp.get(v).fen(), "{v:?} in {order:?}");
            }
        };
        let orders = [
            [Viewer::RED, Viewer::BLACK, Viewer::Spectator],
            [Viewer::Spectator, Viewer::BLACK, Viewer::RED],
            [Viewer::BLACK, Viewer::RED, Viewer::Spectator],
        ];
        for uci in ["h2e2", "h9g7"] {
            g.play_uci(uci).unwrap();
            vp.advance(&g, meta);
            assert_eq!(vp.get(Viewer::RED), vp.get(Viewer::BLACK));
            orders.iter().for_each(|o| check(&vp, *o));
        }
        // Red's face-down cannon from b2 takes Black's face-down piece on b9.
        g.play_uci("b2b9").unwrap();
        vp.advance(&g, meta);
        assert_ne!(vp.get(Viewer::RED).fen(), vp.get(Viewer::BLACK).fen());
        orders.iter().for_each(|o| check(&vp, *o));
    }
}
