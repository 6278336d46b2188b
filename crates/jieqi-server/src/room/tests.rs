//! The room driven without tokio: inputs and instants in, effects out.

use std::time::Duration;

use jieqi_core::{ByColor, Color, Deal, Outcome, Reason, RuleSet, Viewer};

use super::*;
use crate::clock::TimeControl;
use crate::protocol::{ClientIn, ClientOut, ErrorCode};
use crate::store::{StoredGame, Write};
use crate::{Created, GameOptions};

const RED: ConnId = 1;
const BLACK: ConnId = 2;
const WATCHER: ConnId = 3;

fn tokens() -> ByColor<String> {
    ByColor {
        red: "r".repeat(32),
        black: "b".repeat(32),
    }
}

fn stored(engine: ByColor<Option<u8>>, tc: Option<TimeControl>) -> StoredGame {
    let opts = GameOptions {
        rules: RuleSet::STANDARD,
        tc,
        engine,
        invite: None,
        listed: false,
        rematch_of: None,
        users: ByColor::default(),
        rated: false,
    };
    let deal = Deal::from_seed(b"room tests");
    StoredGame {
        new: new_game_record("roomtest01", &opts, &tokens(), None, &deal, "salt"),
        invite_claimed: false,
        started_ms: None,
        moves: Vec::new(),
        finish: None,
        rematch: None,
        updated_ms: 0,
    }
}

/// Hands every write back as done (as the shell does when the store succeeds);
/// returns the writes and the other effects in order.
fn settle(room: &mut Room, fx: Vec<Effect>, now: Now) -> (Vec<Write>, Vec<Effect>) {
    let mut writes = Vec::new();
    let mut rest = Vec::new();
    let mut queue: std::collections::VecDeque<Effect> = fx.into();
    while let Some(e) = queue.pop_front() {
        match e {
            Effect::Persist(w) => {
                writes.push(w);
                for e in room.handle(Input::Persisted(Ok(())), now).into_iter().rev() {
                    queue.push_front(e);
                }
            }
            e => rest.push(e),
        }
    }
    (writes, rest)
}

fn client(room: &mut Room, conn: ConnId, msg: ClientIn, now: Now) -> (Vec<Write>, Vec<Effect>) {
    let fx = room.handle(Input::Client { conn, msg, v: None }, now);
    settle(room, fx, now)
}

fn mv(uci: &str) -> ClientIn {
    ClientIn::Move { uci: uci.into() }
}

/// A friend game with both players (and a spectator) joined: live.
fn live_game(tc: Option<TimeControl>, now: Now) -> Room {
    let mut room = Room::from_stored(stored(ByColor::default(), tc), None, 60_000, now).unwrap();
    for (conn, token) in [
        (RED, Some(tokens().red)),
        (BLACK, Some(tokens().black)),
        (WATCHER, None),
    ] {
        let fx = room.handle(Input::Join { conn, token }, now);
        let (_, fx) = settle(&mut room, fx, now);
        assert!(
            fx.iter()
                .any(|e| matches!(e, Effect::Reply(Reply::Joined(Ok(_))))),
            "{fx:?}"
        );
    }
    assert_eq!(room.status(), Status::Live);
    room
}

/// The messages `conn` (as `viewer`) receives from these effects.
fn received(fx: &[Effect], conn: ConnId, viewer: Viewer) -> Vec<&ClientOut> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Send { conn: c, out } if *c == conn => Some(&out.msg),
            Effect::Broadcast(per) => per.get(viewer).map(|o| &o.msg),
            _ => None,
        })
        .collect()
}

fn error_code(fx: &[Effect], conn: ConnId) -> Option<ErrorCode> {
    fx.iter().find_map(|e| match e {
        Effect::Send {
            conn: c,
            out:
                Outgoing {
                    msg: ClientOut::Error(err),
                    ..
                },
        } if *c == conn => Some(err.code),
        _ => None,
    })
}

fn ended(fx: &[Effect]) -> Option<Outcome> {
    fx.iter().find_map(|e| match e {
        Effect::Ended(o) => Some(*o),
        _ => None,
    })
}

fn a_legal_move(room: &Room) -> String {
    room.game().position().legal_moves().as_slice()[0].to_string()
}

#[test]
fn a_move_is_stored_before_anybody_hears_of_it() {
    let now = Now::real();
    let mut room = live_game(None, now);
    let v = room.version();
    let m = a_legal_move(&room);
    let fx = room.handle(
        Input::Client {
            conn: RED,
            msg: mv(&m),
            v: Some(v),
        },
        now,
    );
    assert!(
        matches!(fx.as_slice(), [Effect::Persist(Write::Move { mv, .. })] if mv.uci == m),
        "only the write, nothing sent: {fx:?}"
    );
    assert!(room.is_waiting_for_store());
    assert_eq!(room.version(), v, "no new version before the write");
    let stored_at = match &fx[0] {
        Effect::Persist(Write::Move { mv, .. }) => mv.at_ms,
        other => panic!("{other:?}"),
    };
    // The write takes a while: the move is still announced as of when it was played.
    let fx = room.handle(
        Input::Persisted(Ok(())),
        now.after(Duration::from_millis(40)),
    );
    for (conn, viewer) in [
        (RED, Viewer::RED),
        (BLACK, Viewer::BLACK),
        (WATCHER, Viewer::Spectator),
    ] {
        let got = received(&fx, conn, viewer);
        assert!(
            matches!(got.as_slice(), [ClientOut::Move(m)] if m.ply.n == 1 && m.ply.at_ms == stored_at),
            "{got:?}"
        );
    }
    assert_eq!(room.version(), v + 1);
}

#[test]
fn a_move_whose_write_fails_is_taken_back_and_refused() {
    let now = Now::real();
    let mut room = live_game(None, now);
    let v = room.version();
    let m = a_legal_move(&room);
    let fx = room.handle(
        Input::Client {
            conn: RED,
            msg: mv(&m),
            v: None,
        },
        now,
    );
    assert_eq!(fx.len(), 1);
    let fx = room.handle(Input::Persisted(Err("disk full".into())), now);
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::Internal));
    assert!(received(&fx, BLACK, Viewer::BLACK).is_empty());
    assert!(room.game().plies().is_empty());
    assert_eq!(room.version(), v);
    // The same move can be played again.
    let (writes, _) = client(&mut room, RED, mv(&m), now);
    assert_eq!(writes.len(), 1);
    assert_eq!(room.game().plies().len(), 1);
}

#[test]
fn bad_moves_are_refused_with_their_codes_and_change_nothing() {
    let now = Now::real();
    let mut room = live_game(None, now);
    let v = room.version();
    for (conn, msg, code) in [
        (RED, mv("a0a9"), ErrorCode::IllegalMove),
        (RED, mv("zz"), ErrorCode::BadMove),
        (BLACK, mv("a9a8"), ErrorCode::NotYourTurn),
        (WATCHER, mv("a0a1"), ErrorCode::NotAPlayer),
        (RED, ClientIn::AcceptDraw, ErrorCode::NoDrawOffer),
        (RED, ClientIn::Rematch, ErrorCode::NotOver),
        (RED, ClientIn::ClaimAbandonment, ErrorCode::NotAbandoned),
    ] {
        let (writes, fx) = client(&mut room, conn, msg, now);
        assert!(writes.is_empty());
        assert_eq!(error_code(&fx, conn), Some(code), "{fx:?}");
        assert_eq!(fx.len(), 1, "only the sender hears: {fx:?}");
    }
    let fx = room.handle(
        Input::Client {
            conn: RED,
            msg: mv(&a_legal_move(&room)),
            v: Some(v + 7),
        },
        now,
    );
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::StaleVersion));
    assert_eq!(room.version(), v);
    assert!(room.game().plies().is_empty());
}

#[test]
fn the_running_clock_flags_at_its_deadline() {
    let now = Now::real();
    let tc = TimeControl::parse("1+0", None).unwrap();
    let mut room = live_game(tc, now);
    let deadline = room.deadline().expect("Red's clock runs");
    assert_eq!(deadline, now.at + Duration::from_secs(60));
    // Before the deadline a tick does nothing.
    assert!(
        room.handle(Input::Tick, now.after(Duration::from_secs(59)))
            .is_empty()
    );
    let late = now.after(Duration::from_secs(61));
    let fx = room.handle(Input::Tick, late);
    let (writes, fx) = settle(&mut room, fx, late);
    assert!(
        matches!(writes.as_slice(), [Write::Finish { .. }]),
        "{writes:?}"
    );
    let lost = Outcome::Win {
        winner: Color::Black,
        reason: Reason::Time,
    };
    assert_eq!(ended(&fx), Some(lost));
    assert!(matches!(
        received(&fx, RED, Viewer::RED).as_slice(),
        [ClientOut::End(_)]
    ));
    assert_eq!(room.status(), Status::Finished);
    assert_eq!(room.deadline(), None);
    // A move that arrives after the flag is over.
    let (_, fx) = client(&mut room, RED, mv("a3a4"), late);
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::GameOver));
}

#[test]
fn a_move_after_the_flag_fell_loses_on_time_and_is_told_so() {
    let now = Now::real();
    let tc = TimeControl::parse("1+0", None).unwrap();
    let mut room = live_game(tc, now);
    let late = now.after(Duration::from_secs(61));
    let m = a_legal_move(&room);
    let (_, fx) = client(&mut room, RED, mv(&m), late);
    assert_eq!(ended(&fx).map(|o| o.reason()), Some(Reason::Time), "{fx:?}");
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::GameOver));
    assert!(room.game().plies().is_empty());
}

#[test]
fn a_draw_is_offered_declined_offered_again_and_accepted() {
    let now = Now::real();
    let mut room = live_game(None, now);
    let v = room.version();
    let (_, fx) = client(&mut room, RED, ClientIn::OfferDraw, now);
    let got = received(&fx, BLACK, Viewer::BLACK);
    assert!(
        matches!(got.as_slice(), [ClientOut::Draw(d)] if d.offer == Some("red")),
        "{got:?}"
    );
    assert_eq!(room.version(), v + 1);
    let (_, fx) = client(&mut room, BLACK, ClientIn::DeclineDraw, now);
    assert!(matches!(
        received(&fx, RED, Viewer::RED).as_slice(),
        [ClientOut::Draw(d)] if d.offer.is_none() && d.declined_by == Some("black")
    ));
    client(&mut room, RED, ClientIn::OfferDraw, now);
    let (writes, fx) = client(&mut room, BLACK, ClientIn::AcceptDraw, now);
    assert!(matches!(writes.as_slice(), [Write::Finish { .. }]));
    assert_eq!(
        ended(&fx),
        Some(Outcome::Draw {
            reason: Reason::Agreement
        })
    );
}

#[test]
fn resignation_ends_the_game_and_a_rematch_needs_both() {
    let now = Now::real();
    let mut room = live_game(None, now);
    let (_, fx) = client(&mut room, RED, ClientIn::Resign, now);
    assert_eq!(
        ended(&fx),
        Some(Outcome::Win {
            winner: Color::Black,
            reason: Reason::Resignation
        })
    );
    let (_, fx) = client(&mut room, RED, ClientIn::Rematch, now);
    assert!(matches!(
        received(&fx, BLACK, Viewer::BLACK).as_slice(),
        [ClientOut::Rematch(r)] if r.offered_by == ["red"] && r.game.is_none()
    ));
    let (_, fx) = client(&mut room, BLACK, ClientIn::Rematch, now);
    let Some(Effect::CreateRematch(opts)) = fx.first() else {
        panic!("{fx:?}");
    };
    assert_eq!(opts.rematch_of.as_deref(), Some("roomtest01"));
    let created = Created {
        id: "rematch001".into(),
        tokens: ByColor {
            red: "1".repeat(32),
            black: "2".repeat(32),
        },
        invite_token: None,
        commitment: String::new(),
    };
    let fx = room.handle(Input::RematchCreated(Ok(created)), now);
    let (writes, fx) = settle(&mut room, fx, now);
    assert_eq!(
        writes,
        [Write::Rematch {
            id: "roomtest01".into(),
            rematch: "rematch001".into()
        }]
    );
    // Colours swap: the old Red plays Black in the rematch.
    let url_of = |conn, viewer| match received(&fx, conn, viewer).as_slice() {
        [ClientOut::Rematch(r)] => r.url.clone(),
        other => panic!("{other:?}"),
    };
    let black_seat = format!("/game/rematch001?seat={}", "2".repeat(32));
    assert_eq!(
        url_of(RED, Viewer::RED).as_deref(),
        Some(black_seat.as_str())
    );
    assert_eq!(
        url_of(WATCHER, Viewer::Spectator).as_deref(),
        Some("/game/rematch001")
    );
}

#[test]
fn a_stored_rematch_keeps_its_seat_links() {
    let now = Now::real();
    let mut s = stored(ByColor::default(), None);
    s.started_ms = Some(1);
    s.finish = Some(crate::store::FinishRecord {
        outcome: Outcome::Win {
            winner: Color::Red,
            reason: Reason::Resignation,
        },
        at_ms: 2,
    });
    s.rematch = Some("rematch001".into());
    let swapped = ByColor {
        red: "2".repeat(32),
        black: "1".repeat(32),
    };
    let mut room = Room::from_stored(s, Some(swapped), 60_000, now).unwrap();
    let fx = room.handle(
        Input::Join {
            conn: BLACK,
            token: Some(tokens().black),
        },
        now,
    );
    let (_, fx) = settle(&mut room, fx, now);
    let Some(ClientOut::State(st)) = received(&fx, BLACK, Viewer::BLACK).first().copied() else {
        panic!("{fx:?}");
    };
    let want = format!("/game/rematch001?seat={}", "1".repeat(32));
    assert_eq!(
        st.rematch.as_ref().and_then(|r| r.url.as_deref()),
        Some(want.as_str())
    );
}

#[test]
fn an_organisers_result_ends_the_game_before_it_is_answered() {
    let now = Now::real();
    let mut room = live_game(None, now);
    let given = Outcome::Win {
        winner: Color::Red,
        reason: Reason::Adjudication,
    };
    let fx = room.handle(Input::Adjudicate { outcome: given }, now);
    assert!(
        matches!(fx.as_slice(), [Effect::Persist(Write::Finish { .. })]),
        "{fx:?}"
    );
    let fx = room.handle(Input::Persisted(Ok(())), now);
    assert_eq!(ended(&fx), Some(given));
    let end_then_reply: Vec<bool> = fx
        .iter()
        .filter_map(|e| match e {
            Effect::Ended(_) => Some(false),
            Effect::Reply(Reply::Adjudicated(Ok(()))) => Some(true),
            _ => None,
        })
        .collect();
    assert_eq!(end_then_reply, [false, true], "{fx:?}");
    let (writes, fx) = client(&mut room, RED, mv("a3a4"), now);
    assert!(writes.is_empty());
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::GameOver));
    // Again: the game is over already, nothing more happens.
    let fx = room.handle(Input::Adjudicate { outcome: given }, now);
    assert!(matches!(
        fx.as_slice(),
        [Effect::Reply(Reply::Adjudicated(Ok(())))]
    ));
}

#[test]
fn the_engine_is_asked_with_its_own_view_and_its_move_is_stored() {
    let now = Now::real();
    let engine_black = ByColor {
        red: None,
        black: Some(3),
    };
    let mut room = Room::from_stored(stored(engine_black, None), None, 60_000, now).unwrap();
    assert!(room.start(now).is_empty(), "waiting: nobody to move yet");
    let fx = room.handle(
        Input::Join {
            conn: RED,
            token: Some(tokens().red),
        },
        now,
    );
    let (_, fx) = settle(&mut room, fx, now);
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::AskEngine(_))),
        "Red moves first"
    );
    let first = a_legal_move(&room);
    let (_, fx) = client(&mut room, RED, mv(&first), now);
    let ask = fx
        .iter()
        .find_map(|e| match e {
            Effect::AskEngine(a) => Some(a),
            _ => None,
        })
        .expect("the engine is asked after Red's move");
    assert_eq!(ask.plies, 1);
    assert_eq!(ask.level, 3);
    // Black's view: Red's face-down pieces stay face-down in it.
    assert_eq!(ask.pos.fen(), room.views.get(Viewer::BLACK).fen());
    let reply = ask.pos.legal_moves().as_slice()[0];
    // A stale answer (for another ply) is ignored.
    let fx = room.handle(
        Input::EngineMove {
            plies: 0,
            mv: Some(reply),
        },
        now,
    );
    assert!(!fx.iter().any(|e| matches!(e, Effect::Persist(_))));
    let fx = room.handle(
        Input::EngineMove {
            plies: 1,
            mv: Some(reply),
        },
        now,
    );
    assert!(matches!(
        fx.as_slice(),
        [Effect::Persist(Write::Move { .. })]
    ));
    let (_, fx) = settle(&mut room, fx, now);
    assert!(matches!(
        received(&fx, RED, Viewer::RED).as_slice(),
        [ClientOut::Move(m)] if m.ply.n == 2 && m.legal.moves().len() > 1
    ));
    assert_eq!(room.game().plies().len(), 2);
}

#[test]
fn a_private_game_refuses_spectators_and_withholds_its_deal() {
    let now = Now::real();
    let mut room = live_game(None, now);
    room.set_private(true);
    let fx = room.handle(
        Input::Join {
            conn: 9,
            token: None,
        },
        now,
    );
    assert!(matches!(
        fx.as_slice(),
        [Effect::Reply(Reply::Joined(Err(e)))] if e.code == ErrorCode::Private
    ));
    let (_, fx) = client(&mut room, RED, ClientIn::Resign, now);
    let got = received(&fx, BLACK, Viewer::BLACK);
    assert!(
        matches!(got.as_slice(), [ClientOut::End(e)] if e.withheld && e.deal.is_empty()),
        "{got:?}"
    );
}

#[test]
fn a_rated_seat_goes_to_another_account_and_the_rematch_stays_rated() {
    let now = Now::real();
    let mut s = stored(ByColor::default(), TimeControl::parse("3+2", None).unwrap());
    s.new.rated = true;
    s.new.invite = Some(Color::Black);
    s.new.invite_token = Some("i".repeat(32));
    s.new.seats.red.user = Some("Alice".into());
    let mut room = Room::from_stored(s, None, 60_000, now).unwrap();
    let mut claim = |user: Option<&str>| {
        let fx = room.handle(
            Input::ClaimInvite {
                invite: Some("i".repeat(32)),
                user: user.map(str::to_string),
            },
            now,
        );
        let (writes, rest) = settle(&mut room, fx, now);
        let Some(Effect::Reply(Reply::Claimed(r))) = rest.into_iter().next() else {
            panic!("no answer to the claim");
        };
        (writes, r)
    };
    assert_eq!(claim(None).1, Err(ClaimRefused::LoginRequired));
    assert_eq!(claim(Some("Alice")).1, Err(ClaimRefused::OwnGame));
    let (writes, r) = claim(Some("Bob"));
    assert_eq!(r.map(|(c, _)| c), Ok(Color::Black));
    let Some(Write::Seats { users, .. }) = writes.first() else {
        panic!("the claimant's account is stored: {writes:?}");
    };
    assert_eq!(users.black.as_deref(), Some("Bob"));
    // Once Bob's, the seat is not handed to another account (nor again to nobody).
    assert_eq!(claim(Some("Carol")).1, Err(ClaimRefused::SeatTaken));
    assert_eq!(claim(Some("Bob")).1.map(|(c, _)| c), Ok(Color::Black));
    for (conn, token) in [(RED, tokens().red), (BLACK, tokens().black)] {
        let fx = room.handle(
            Input::Join {
                conn,
                token: Some(token),
            },
            now,
        );
        settle(&mut room, fx, now);
    }
    let (_, fx) = client(&mut room, BLACK, ClientIn::Resign, now);
    assert!(ended(&fx).is_some());
    client(&mut room, RED, ClientIn::Rematch, now);
    let (_, fx) = client(&mut room, BLACK, ClientIn::Rematch, now);
    let Some(Effect::CreateRematch(opts)) = fx.first() else {
        panic!("no rematch: {fx:?}");
    };
    assert!(opts.rated);
    assert_eq!(opts.users.red.as_deref(), Some("Bob"), "colours swap");
    assert_eq!(opts.users.black.as_deref(), Some("Alice"));
}
