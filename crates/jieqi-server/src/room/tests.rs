//! The room driven without tokio: inputs and instants in, effects out.

use std::time::Duration;

use jieqi_core::{ByColor, Color, Deal, Outcome, Reason, RuleSet, Viewer};

use super::*;
use crate::chat::ChatRoom;
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
        chat: Vec::new(),
        mutes: ByColor::default(),
        takeback: None,
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
    let mut room = Room::from_stored(
        stored(ByColor::default(), tc),
        None,
        RoomLimits::default(),
        now,
    )
    .unwrap();
    for (conn, token) in [
        (RED, Some(tokens().red)),
        (BLACK, Some(tokens().black)),
        (WATCHER, None),
    ] {
        let fx = room.handle(
            Input::Join {
                conn,
                token,
                watch: false,
                user: None,
                addr: None,
            },
            now,
        );
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
        (RED, ClientIn::AcceptDraw, ErrorCode::AbortOnly),
        (RED, ClientIn::Rematch, ErrorCode::NotOver),
        (RED, ClientIn::ClaimAbandonment, ErrorCode::AbortOnly),
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

/// `conn` plays a legal move at `now`.
fn play_one(room: &mut Room, conn: ConnId, now: Now) -> (Vec<Write>, Vec<Effect>) {
    let m = a_legal_move(room);
    client(room, conn, mv(&m), now)
}

/// Both players' first moves, played at `now` (no clock runs before them); the
/// clocks run from then on.
fn play_first_moves(room: &mut Room, now: Now) {
    for conn in [RED, BLACK] {
        let m = a_legal_move(room);
        let (writes, fx) = client(room, conn, mv(&m), now);
        assert!(matches!(writes.as_slice(), [Write::Move { .. }]), "{fx:?}");
    }
}

#[test]
fn the_running_clock_flags_at_its_deadline() {
    let now = Now::real();
    let tc = TimeControl::parse("1+0", None).unwrap();
    let mut room = live_game(tc, now);
    play_first_moves(&mut room, now);
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
    play_first_moves(&mut room, now);
    let late = now.after(Duration::from_secs(61));
    let m = a_legal_move(&room);
    let (_, fx) = client(&mut room, RED, mv(&m), late);
    assert_eq!(ended(&fx).map(|o| o.reason()), Some(Reason::Time), "{fx:?}");
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::GameOver));
    assert_eq!(room.game().plies().len(), 2);
}

#[test]
fn a_draw_is_offered_declined_offered_again_and_accepted() {
    let now = Now::real();
    let mut room = live_game(None, now);
    play_first_moves(&mut room, now);
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
    play_first_moves(&mut room, now);
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
        end: GameEnd::Result(Outcome::Win {
            winner: Color::Red,
            reason: Reason::Resignation,
        }),
        at_ms: 2,
    });
    s.rematch = Some("rematch001".into());
    let swapped = ByColor {
        red: "2".repeat(32),
        black: "1".repeat(32),
    };
    let mut room = Room::from_stored(s, Some(swapped), RoomLimits::default(), now).unwrap();
    let fx = room.handle(
        Input::Join {
            conn: BLACK,
            token: Some(tokens().black),
            watch: false,
            user: None,
            addr: None,
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
    let mut room =
        Room::from_stored(stored(engine_black, None), None, RoomLimits::default(), now).unwrap();
    assert!(room.start(now).is_empty(), "waiting: nobody to move yet");
    let fx = room.handle(
        Input::Join {
            conn: RED,
            token: Some(tokens().red),
            watch: false,
            user: None,
            addr: None,
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
            watch: false,
            user: None,
            addr: None,
        },
        now,
    );
    assert!(matches!(
        fx.as_slice(),
        [Effect::Reply(Reply::Joined(Err(e)))] if e.code == ErrorCode::Private
    ));
    play_first_moves(&mut room, now);
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
    let mut room = Room::from_stored(s, None, RoomLimits::default(), now).unwrap();
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
                watch: false,
                user: None,
                addr: None,
            },
            now,
        );
        settle(&mut room, fx, now);
    }
    play_first_moves(&mut room, now);
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

// --- Game start: first moves, abort (docs/server.md, "Game start") ---

fn state_of(room: &Room, v: Viewer, now: Now) -> crate::protocol::out::StateOut {
    match room.state_out(v, now) {
        ClientOut::State(s) => *s,
        other => panic!("{other:?}"),
    }
}

fn finish_written(writes: &[Write]) -> Option<GameEnd> {
    writes.iter().find_map(|w| match w {
        Write::Finish { finish, .. } => Some(finish.end),
        Write::Move {
            finish: Some(f), ..
        } => Some(f.end),
        _ => None,
    })
}

fn end_received(fx: &[Effect], conn: ConnId, viewer: Viewer) -> Option<crate::knowledge::EndOut> {
    received(fx, conn, viewer)
        .into_iter()
        .find_map(|m| match m {
            ClientOut::End(e) => Some((**e).clone()),
            _ => None,
        })
}

#[test]
fn clocks_do_not_run_before_each_players_first_move() {
    let now = Now::real();
    let tc = TimeControl::parse("1+5", Some(20)).unwrap();
    let mut room = live_game(tc, now);
    let s = state_of(&room, Viewer::RED, now);
    let clock = s.clock.unwrap();
    assert_eq!((clock.running, clock.red_ms), (None, 60_000));
    let first = s.first_move.expect("Red's first move is awaited");
    assert_eq!((first.color, first.left_ms), ("red", 30_000));
    assert!(s.abortable);
    assert!(!state_of(&room, Viewer::Spectator, now).abortable);
    // The first-move window, not the clock, is the deadline (longer than the step time).
    assert_eq!(room.deadline(), Some(now.at + Duration::from_secs(30)));
    // Red takes 25 s: nothing is charged, no increment is added.
    let t1 = now.after(Duration::from_secs(25));
    let (_, fx) = play_one(&mut room, RED, t1);
    let got = received(&fx, BLACK, Viewer::BLACK);
    let [ClientOut::Move(m)] = got.as_slice() else {
        panic!("{got:?}")
    };
    assert_eq!(m.ply.clock_ms, Some(60_000));
    let clock = m.clock.as_ref().unwrap();
    assert_eq!(
        (clock.running, clock.red_ms, clock.black_ms),
        (None, 60_000, 60_000)
    );
    assert_eq!(
        m.first_move.as_ref().map(|f| (f.color, f.left_ms)),
        Some(("black", 30_000))
    );
    assert!(m.abortable, "Black has not moved yet");
    // Black's window runs from Red's move.
    assert_eq!(room.deadline(), Some(t1.at + Duration::from_secs(30)));
    let t2 = t1.after(Duration::from_secs(29));
    let (_, fx) = play_one(&mut room, BLACK, t2);
    let got = received(&fx, RED, Viewer::RED);
    let [ClientOut::Move(m)] = got.as_slice() else {
        panic!("{got:?}")
    };
    assert_eq!(m.ply.clock_ms, Some(60_000));
    let clock = m.clock.as_ref().unwrap();
    assert_eq!(
        clock.running,
        Some("red"),
        "Red's clock runs from Black's first move"
    );
    assert!(m.first_move.is_none() && !m.abortable);
    // From now on the normal clock: the step time of 20 s is the deadline.
    assert_eq!(room.deadline(), Some(t2.at + Duration::from_secs(20)));
    let t3 = t2.after(Duration::from_secs(4));
    let (_, fx) = play_one(&mut room, RED, t3);
    let got = received(&fx, RED, Viewer::RED);
    assert!(
        matches!(got.as_slice(), [ClientOut::Move(m)] if m.ply.clock_ms == Some(61_000)),
        "4 s charged, 5 s added: {got:?}"
    );
}

#[test]
fn either_player_may_abort_before_both_have_moved_and_nobody_after() {
    let now = Now::real();
    let tc = TimeControl::parse("3+2", None).unwrap();
    // Before any move, and after Red's first (by either player).
    for (plies, by) in [(0, RED), (1, RED), (1, BLACK)] {
        let mut room = live_game(tc, now);
        for _ in 0..plies {
            play_one(&mut room, RED, now);
        }
        let (_, fx) = client(&mut room, WATCHER, ClientIn::Abort, now);
        assert_eq!(error_code(&fx, WATCHER), Some(ErrorCode::NotAPlayer));
        let v = room.version();
        let (writes, fx) = client(&mut room, by, ClientIn::Abort, now);
        assert_eq!(
            finish_written(&writes),
            Some(GameEnd::Aborted),
            "{writes:?}"
        );
        assert_eq!(
            ended(&fx),
            None,
            "no result: nobody listening for results hears of it"
        );
        for (conn, viewer) in [
            (RED, Viewer::RED),
            (BLACK, Viewer::BLACK),
            (WATCHER, Viewer::Spectator),
        ] {
            let end = end_received(&fx, conn, viewer).expect("everyone hears of the abort");
            assert_eq!((end.result, end.winner, end.reason), ("*", None, "aborted"));
            assert!(end.commitment_ok, "the deal is published and checks");
        }
        assert_eq!(room.status(), Status::Finished);
        assert!(room.is_aborted());
        assert_eq!(room.version(), v + 1);
        assert_eq!(room.deadline(), None);
        let (_, fx) = client(&mut room, by, ClientIn::Abort, now);
        assert_eq!(error_code(&fx, by), Some(ErrorCode::NotAbortable));
        let (_, fx) = client(&mut room, RED, mv("a3a4"), now);
        assert_eq!(error_code(&fx, RED), Some(ErrorCode::GameOver));
    }
    // After both first moves: refused, and the game goes on.
    let mut room = live_game(tc, now);
    play_first_moves(&mut room, now);
    for conn in [RED, BLACK] {
        let (writes, fx) = client(&mut room, conn, ClientIn::Abort, now);
        assert!(writes.is_empty());
        assert_eq!(error_code(&fx, conn), Some(ErrorCode::NotAbortable));
    }
    assert_eq!(room.status(), Status::Live);
}

#[test]
fn before_both_first_moves_only_an_abort_ends_the_game() {
    let now = Now::real();
    let mut room = live_game(None, now);
    let refused = |room: &mut Room| {
        for conn in [RED, BLACK] {
            for msg in [
                ClientIn::Resign,
                ClientIn::OfferDraw,
                ClientIn::AcceptDraw,
                ClientIn::ClaimAbandonment,
            ] {
                let what = format!("{msg:?}");
                let (writes, fx) = client(room, conn, msg, now);
                assert!(writes.is_empty(), "{what}: {writes:?}");
                assert_eq!(error_code(&fx, conn), Some(ErrorCode::AbortOnly), "{what}");
                assert_eq!(fx.len(), 1, "only the sender hears: {fx:?}");
            }
        }
        assert_eq!(room.status(), Status::Live);
        assert!(room.abortable());
    };
    refused(&mut room);
    // After Red's first move Black's is still awaited: still only an abort.
    let m = a_legal_move(&room);
    client(&mut room, RED, mv(&m), now);
    refused(&mut room);
    // Once both have moved, a resignation is a result.
    let m = a_legal_move(&room);
    client(&mut room, BLACK, mv(&m), now);
    let (_, fx) = client(&mut room, RED, ClientIn::OfferDraw, now);
    assert_eq!(error_code(&fx, RED), None);
    let (_, fx) = client(&mut room, BLACK, ClientIn::Resign, now);
    assert_eq!(
        ended(&fx),
        Some(Outcome::Win {
            winner: Color::Red,
            reason: Reason::Resignation
        })
    );
    // A tournament game cannot be aborted, so it may be resigned from the start.
    let mut room = live_game(None, now);
    room.set_tournament(true);
    let (_, fx) = client(&mut room, RED, ClientIn::Resign, now);
    assert_eq!(
        ended(&fx),
        Some(Outcome::Win {
            winner: Color::Black,
            reason: Reason::Resignation
        })
    );
}

#[test]
fn a_guest_spectators_chat_limit_outlives_his_connection() {
    let now = Now::real();
    let mut room = live_game(None, now);
    let here: IpAddr = [203, 0, 113, 7].into();
    let join = |room: &mut Room, conn: ConnId, addr: IpAddr| {
        let fx = room.handle(
            Input::Join {
                conn,
                token: None,
                watch: false,
                user: None,
                addr: Some(addr),
            },
            now,
        );
        settle(room, fx, now);
    };
    join(&mut room, 10, here);
    let per_window = crate::chat::ChatLimits::default().per_window;
    for i in 0..per_window {
        let (_, fx) = client(
            &mut room,
            10,
            chat(ChatRoom::Spectators, &format!("{i}")),
            now,
        );
        assert_eq!(error_code(&fx, 10), None);
    }
    let (_, fx) = client(&mut room, 10, chat(ChatRoom::Spectators, "more"), now);
    assert_eq!(error_code(&fx, 10), Some(ErrorCode::RateLimited));
    // Reconnecting (a new connection from the same address) does not reset it.
    room.handle(Input::Leave { conn: 10 }, now);
    join(&mut room, 11, here);
    let (writes, fx) = client(&mut room, 11, chat(ChatRoom::Spectators, "again"), now);
    assert!(writes.is_empty());
    assert_eq!(error_code(&fx, 11), Some(ErrorCode::RateLimited));
    // A guest elsewhere talks; the first may again after the window.
    join(&mut room, 12, [198, 51, 100, 1].into());
    let (_, fx) = client(&mut room, 12, chat(ChatRoom::Spectators, "hi"), now);
    assert_eq!(error_code(&fx, 12), None);
    let later = now.after(crate::chat::ChatLimits::default().window);
    let (_, fx) = client(&mut room, 11, chat(ChatRoom::Spectators, "now"), later);
    assert_eq!(error_code(&fx, 11), None);
}

#[test]
fn a_waiting_game_may_be_aborted_by_its_creator() {
    let now = Now::real();
    let mut room = Room::from_stored(
        stored(ByColor::default(), None),
        None,
        RoomLimits::default(),
        now,
    )
    .unwrap();
    let fx = room.handle(
        Input::Join {
            conn: RED,
            token: Some(tokens().red),
            watch: false,
            user: None,
            addr: None,
        },
        now,
    );
    settle(&mut room, fx, now);
    assert_eq!(room.status(), Status::Waiting);
    assert_eq!(
        room.deadline(),
        None,
        "no first-move window before the game starts"
    );
    let (writes, _) = client(&mut room, RED, ClientIn::Abort, now);
    assert_eq!(finish_written(&writes), Some(GameEnd::Aborted));
    assert_eq!(room.status(), Status::Finished);
}

#[test]
fn a_missed_first_move_aborts_the_game() {
    let now = Now::real();
    let tc = TimeControl::parse("10+0", None).unwrap();
    for late in [Color::Red, Color::Black] {
        let mut room = live_game(tc, now);
        let mut t = now;
        if late == Color::Black {
            t = now.after(Duration::from_secs(20));
            play_one(&mut room, RED, t);
        }
        let due = t.after(Duration::from_secs(30));
        assert_eq!(room.deadline(), Some(due.at));
        assert!(
            room.handle(Input::Tick, t.after(Duration::from_secs(29)))
                .is_empty()
        );
        let fx = room.handle(Input::Tick, due);
        let (writes, fx) = settle(&mut room, fx, due);
        assert_eq!(finish_written(&writes), Some(GameEnd::Aborted), "{late:?}");
        assert_eq!(ended(&fx), None);
        assert!(end_received(&fx, WATCHER, Viewer::Spectator).is_some());
        assert!(room.is_aborted());
    }
    // A first move that arrives after its window closed aborts as well, and is told.
    let mut room = live_game(tc, now);
    let late = now.after(Duration::from_secs(31));
    let (writes, fx) = play_one(&mut room, RED, late);
    assert_eq!(finish_written(&writes), Some(GameEnd::Aborted));
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::GameOver));
    assert!(room.game().plies().is_empty());
}

#[test]
fn the_first_move_window_of_an_untimed_game_and_of_the_engine() {
    let now = Now::real();
    // Untimed: the window applies all the same.
    let room = live_game(None, now);
    assert_eq!(room.deadline(), Some(now.at + Duration::from_secs(30)));
    // The engine to move: no window (it is asked at once).
    let engine_red = ByColor {
        red: Some(2),
        black: None,
    };
    let mut room =
        Room::from_stored(stored(engine_red, None), None, RoomLimits::default(), now).unwrap();
    let fx = room.handle(
        Input::Join {
            conn: BLACK,
            token: Some(tokens().black),
            watch: false,
            user: None,
            addr: None,
        },
        now,
    );
    let (_, fx) = settle(&mut room, fx, now);
    assert!(fx.iter().any(|e| matches!(e, Effect::AskEngine(_))));
    assert_eq!(room.deadline(), None);
}

#[test]
fn the_first_move_window_starts_again_after_a_restart() {
    let now = Now::real();
    let tc = TimeControl::parse("5+0", None);
    let mut s = stored(ByColor::default(), tc.unwrap());
    s.started_ms = Some(1);
    s.new.seats.red.joined = true;
    s.new.seats.black.joined = true;
    let mut game = Game::new(Deal::from_seed(b"room tests"), RuleSet::STANDARD);
    let m = game.position().legal_moves().as_slice()[0];
    game.play(m).unwrap();
    s.moves.push(crate::store::MoveRecord {
        n: 1,
        uci: m.to_string(),
        red_ms: 300_000,
        black_ms: 300_000,
        at_ms: 5,
    });
    let later = now.after(Duration::from_secs(3600));
    let room = Room::from_stored(s, None, RoomLimits::default(), later).unwrap();
    assert_eq!(room.status(), Status::Live);
    assert_eq!(room.deadline(), Some(later.at + Duration::from_secs(30)));
    let st = state_of(&room, Viewer::BLACK, later);
    assert_eq!(st.first_move.map(|f| f.color), Some("black"));
    assert_eq!(st.clock.unwrap().running, None);
    assert!(st.abortable);
}

#[test]
fn a_tournament_game_cannot_be_aborted_and_a_missed_first_move_loses() {
    let now = Now::real();
    let tc = TimeControl::parse("10+0", None).unwrap();
    let mut room = live_game(tc, now);
    room.set_tournament(true);
    assert!(!state_of(&room, Viewer::RED, now).abortable);
    let (writes, fx) = client(&mut room, RED, ClientIn::Abort, now);
    assert!(writes.is_empty());
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::NotAbortable));
    let t = now.after(Duration::from_secs(5));
    play_one(&mut room, RED, t);
    let due = t.after(Duration::from_secs(30));
    let fx = room.handle(Input::Tick, due);
    let (writes, fx) = settle(&mut room, fx, due);
    let lost = Outcome::Win {
        winner: Color::Red,
        reason: Reason::Forfeit,
    };
    assert_eq!(finish_written(&writes), Some(GameEnd::Result(lost)));
    assert_eq!(ended(&fx), Some(lost), "the tournament hears of the result");
    assert!(!room.is_aborted());
}

// --- Chat (docs/server.md, "Chat") ---

fn chat(room_name: ChatRoom, text: &str) -> ClientIn {
    ClientIn::Chat {
        room: room_name,
        text: text.into(),
    }
}

fn chat_texts(fx: &[Effect], conn: ConnId, viewer: Viewer) -> Vec<String> {
    received(fx, conn, viewer)
        .into_iter()
        .filter_map(|m| match m {
            ClientOut::Chat(c) => Some(c.text.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn chat_goes_to_its_own_room_only() {
    let now = Now::real();
    let mut room = live_game(None, now);
    let v = room.version();
    let (writes, fx) = client(&mut room, RED, chat(ChatRoom::Players, " good luck "), now);
    assert!(
        matches!(writes.as_slice(), [Write::Chat { line, .. }] if line.text == "good luck" && line.color == Some(Color::Red)),
        "stored first: {writes:?}"
    );
    assert_eq!(chat_texts(&fx, RED, Viewer::RED), ["good luck"]);
    assert_eq!(chat_texts(&fx, BLACK, Viewer::BLACK), ["good luck"]);
    assert!(
        chat_texts(&fx, WATCHER, Viewer::Spectator).is_empty(),
        "spectators do not read the players"
    );
    let (_, fx) = client(
        &mut room,
        WATCHER,
        chat(ChatRoom::Spectators, "<img src=x onerror=alert(1)>"),
        now,
    );
    assert_eq!(
        chat_texts(&fx, WATCHER, Viewer::Spectator),
        ["<img src=x onerror=alert(1)>"]
    );
    assert!(
        chat_texts(&fx, RED, Viewer::RED).is_empty(),
        "players do not read the spectators"
    );
    assert!(chat_texts(&fx, BLACK, Viewer::BLACK).is_empty());
    assert_eq!(room.version(), v, "chat changes no game state");
    // Wrong rooms.
    let (writes, fx) = client(&mut room, WATCHER, chat(ChatRoom::Players, "hi"), now);
    assert!(writes.is_empty());
    assert_eq!(error_code(&fx, WATCHER), Some(ErrorCode::ChatRoom));
    let (_, fx) = client(&mut room, BLACK, chat(ChatRoom::Spectators, "hi"), now);
    assert_eq!(error_code(&fx, BLACK), Some(ErrorCode::ChatRoom));
    // Each reads his own room in the state, with the sender's seat.
    let red = state_of(&room, Viewer::RED, now).chat;
    assert_eq!(red.room, Some("players"));
    assert_eq!(
        red.lines
            .iter()
            .map(|l| (l.text.as_str(), l.color))
            .collect::<Vec<_>>(),
        [("good luck", Some("red"))]
    );
    let watcher = state_of(&room, Viewer::Spectator, now).chat;
    assert_eq!(watcher.room, Some("spectators"));
    assert_eq!(watcher.lines.len(), 1);
    assert_eq!(watcher.lines[0].color, None);
    // The chat stays open after the end.
    play_first_moves(&mut room, now);
    client(&mut room, RED, ClientIn::Resign, now);
    let (_, fx) = client(&mut room, BLACK, chat(ChatRoom::Players, "gg"), now);
    assert_eq!(chat_texts(&fx, RED, Viewer::RED), ["gg"]);
}

#[test]
fn chat_lines_are_cleaned_and_limited_in_length_and_rate() {
    let now = Now::real();
    let mut room = live_game(None, now);
    let (_, fx) = client(
        &mut room,
        RED,
        chat(ChatRoom::Players, &"x".repeat(141)),
        now,
    );
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::ChatTooLong));
    let (_, fx) = client(
        &mut room,
        RED,
        chat(ChatRoom::Players, "\u{0}\u{1b}\n "),
        now,
    );
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::ChatEmpty));
    let (_, fx) = client(
        &mut room,
        RED,
        chat(ChatRoom::Players, "a\u{0}b\u{202e}c\nd"),
        now,
    );
    assert_eq!(chat_texts(&fx, BLACK, Viewer::BLACK), ["abc d"]);
    // Four more in the window are fine (refused lines did not count), the sixth is not.
    for i in 0..4 {
        let (_, fx) = client(
            &mut room,
            RED,
            chat(ChatRoom::Players, &format!("{i}")),
            now,
        );
        assert_eq!(error_code(&fx, RED), None);
    }
    let t = now.after(Duration::from_secs(9));
    let (writes, fx) = client(&mut room, RED, chat(ChatRoom::Players, "six"), t);
    assert!(writes.is_empty());
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::RateLimited));
    // Per sender: Black and the spectator may still talk; Red again after the window.
    let (_, fx) = client(&mut room, BLACK, chat(ChatRoom::Players, "me"), t);
    assert_eq!(error_code(&fx, BLACK), None);
    let (_, fx) = client(
        &mut room,
        RED,
        chat(ChatRoom::Players, "again"),
        now.after(Duration::from_secs(10)),
    );
    assert_eq!(error_code(&fx, RED), None);
    // A room holds so many lines.
    let limits = RoomLimits {
        chat: crate::chat::ChatLimits {
            max_lines: 2,
            ..Default::default()
        },
        ..RoomLimits::default()
    };
    let mut room = Room::from_stored(stored(ByColor::default(), None), None, limits, now).unwrap();
    let fx = room.handle(
        Input::Join {
            conn: WATCHER,
            token: None,
            watch: false,
            user: Some("Kibitzer".into()),
            addr: None,
        },
        now,
    );
    settle(&mut room, fx, now);
    for (i, want) in [None, None, Some(ErrorCode::ChatFull)]
        .into_iter()
        .enumerate()
    {
        let (writes, fx) = client(
            &mut room,
            WATCHER,
            chat(ChatRoom::Spectators, &format!("{i}")),
            now,
        );
        assert_eq!(error_code(&fx, WATCHER), want);
        if want.is_none() {
            assert!(
                matches!(writes.as_slice(), [Write::Chat { line, .. }] if line.user.as_deref() == Some("Kibitzer"))
            );
        }
    }
}

#[test]
fn a_player_can_turn_the_opponents_chat_off() {
    let now = Now::real();
    let mut room = live_game(None, now);
    client(&mut room, BLACK, chat(ChatRoom::Players, "before"), now);
    let (writes, fx) = client(&mut room, RED, ClientIn::ChatMute { muted: true }, now);
    assert!(
        matches!(
            writes.as_slice(),
            [Write::ChatMute {
                color: Color::Red,
                muted: true,
                ..
            }]
        ),
        "{writes:?}"
    );
    let got = received(&fx, RED, Viewer::RED);
    assert!(
        matches!(got.as_slice(), [ClientOut::State(s)] if s.chat.muted && s.chat.lines.is_empty()),
        "Red's page refreshes without Black's lines: {got:?}"
    );
    let (_, fx) = client(&mut room, BLACK, chat(ChatRoom::Players, "rude"), now);
    assert!(
        chat_texts(&fx, RED, Viewer::RED).is_empty(),
        "not delivered to Red"
    );
    assert_eq!(
        chat_texts(&fx, BLACK, Viewer::BLACK),
        ["rude"],
        "Black still sees his own"
    );
    let (_, fx) = client(&mut room, RED, chat(ChatRoom::Players, "mine"), now);
    assert_eq!(chat_texts(&fx, RED, Viewer::RED), ["mine"]);
    assert_eq!(
        chat_texts(&fx, BLACK, Viewer::BLACK),
        ["mine"],
        "Black is not muted"
    );
    let (_, fx) = client(&mut room, WATCHER, ClientIn::ChatMute { muted: true }, now);
    assert_eq!(error_code(&fx, WATCHER), Some(ErrorCode::NotAPlayer));
    let (writes, _) = client(&mut room, RED, ClientIn::ChatMute { muted: false }, now);
    assert_eq!(writes.len(), 1);
    let lines = state_of(&room, Viewer::RED, now).chat.lines;
    assert_eq!(
        lines.iter().map(|l| l.text.as_str()).collect::<Vec<_>>(),
        ["before", "rude", "mine"]
    );
}

#[test]
fn an_engine_game_has_no_player_chat_and_stored_chat_comes_back() {
    let now = Now::real();
    let engine_black = ByColor {
        red: None,
        black: Some(1),
    };
    let mut room =
        Room::from_stored(stored(engine_black, None), None, RoomLimits::default(), now).unwrap();
    let fx = room.handle(
        Input::Join {
            conn: RED,
            token: Some(tokens().red),
            watch: false,
            user: None,
            addr: None,
        },
        now,
    );
    settle(&mut room, fx, now);
    assert_eq!(state_of(&room, Viewer::RED, now).chat.room, None);
    let (writes, fx) = client(&mut room, RED, chat(ChatRoom::Players, "hello engine"), now);
    assert!(writes.is_empty());
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::ChatRoom));
    // A restored game has its lines and mutes.
    let mut s = stored(ByColor::default(), None);
    s.chat = vec![crate::chat::ChatLine {
        n: 1,
        room: ChatRoom::Players,
        color: Some(Color::Black),
        user: Some("Bob".into()),
        text: "stored".into(),
        at_ms: 9,
    }];
    s.mutes.red = true;
    let room = Room::from_stored(s, None, RoomLimits::default(), now).unwrap();
    assert!(state_of(&room, Viewer::RED, now).chat.lines.is_empty());
    let black = state_of(&room, Viewer::BLACK, now).chat;
    assert_eq!(black.lines[0].name.as_deref(), Some("Bob"));
    assert!(!black.muted);
}

/// Plays `moves` in turn, Red first, each accepted.
fn play_all(room: &mut Room, moves: &[&str], now: Now) {
    for m in moves {
        let conn = if room.game().turn() == Color::Red {
            RED
        } else {
            BLACK
        };
        let (_, fx) = client(room, conn, mv(m), now);
        assert_eq!(error_code(&fx, conn), None, "{m}");
    }
}

fn takeback_written(writes: &[Write]) -> Option<u32> {
    writes.iter().find_map(|w| match w {
        Write::Takeback { keep, .. } => Some(*keep),
        _ => None,
    })
}

#[test]
fn a_takeback_is_asked_declined_dropped_by_a_move_and_accepted() {
    let now = Now::real();
    let mut room = live_game(Some(TimeControl::parse("5+0", None).unwrap().unwrap()), now);
    // Two reveals, then the kings step up: moves that show nothing.
    play_all(&mut room, &["a3a4", "a6a5", "e0e1", "e9e8", "e1e0"], now);
    assert!(state_of(&room, Viewer::RED, now).takeback.allowed);

    // Red asks to take back his king move (Black has not replied): one ply.
    let (writes, fx) = client(&mut room, RED, ClientIn::Takeback, now);
    assert!(
        matches!(
            writes.as_slice(),
            [Write::TakebackOffer {
                offer: Some((Color::Red, 5)),
                ..
            }]
        ),
        "{writes:?}"
    );
    assert!(matches!(
        received(&fx, BLACK, Viewer::BLACK).as_slice(),
        [ClientOut::Takeback(t)] if t.offer == Some("red") && t.plies == Some(1)
    ));
    assert_eq!(
        state_of(&room, Viewer::Spectator, now).takeback.offer,
        Some("red")
    );
    // Only the opponent answers it.
    let (_, fx) = client(&mut room, RED, ClientIn::AcceptTakeback, now);
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::NoTakeback));
    let (writes, fx) = client(&mut room, BLACK, ClientIn::DeclineTakeback, now);
    assert!(matches!(
        writes.as_slice(),
        [Write::TakebackOffer { offer: None, .. }]
    ));
    assert!(matches!(
        received(&fx, RED, Viewer::RED).as_slice(),
        [ClientOut::Takeback(t)] if t.offer.is_none() && t.declined_by == Some("black")
    ));

    // Asked again, then Black moves instead: the request lapses.
    client(&mut room, RED, ClientIn::Takeback, now);
    play_all(&mut room, &["e8e9"], now);
    assert_eq!(state_of(&room, Viewer::RED, now).takeback.offer, None);
    let (_, fx) = client(&mut room, BLACK, ClientIn::AcceptTakeback, now);
    assert_eq!(error_code(&fx, BLACK), Some(ErrorCode::NoTakeback));

    // Now Red's takeback is his move and Black's reply: two plies. Black accepts.
    client(&mut room, RED, ClientIn::Takeback, now);
    assert_eq!(state_of(&room, Viewer::BLACK, now).takeback.plies, Some(2));
    let v = room.version();
    let (writes, fx) = client(&mut room, BLACK, ClientIn::AcceptTakeback, now);
    assert_eq!(takeback_written(&writes), Some(4));
    assert_eq!(room.game().plies().len(), 4);
    assert_eq!(room.game().turn(), Color::Red);
    let got = received(&fx, WATCHER, Viewer::Spectator);
    assert!(
        matches!(got.as_slice(), [ClientOut::Takeback(t), ClientOut::State(s)]
            if t.taken_back == Some(2) && s.moves.len() == 4 && s.turn == "red"),
        "{got:?}"
    );
    assert_eq!(room.version(), v + 2);
    let s = state_of(&room, Viewer::RED, now);
    assert!(s.takeback.offer.is_none());
    assert_eq!(s.clock.map(|c| c.running), Some(Some("red")));
    // The game goes on from there.
    play_all(&mut room, &["e1e0"], now);
}

#[test]
fn a_move_that_revealed_a_piece_is_never_taken_back() {
    let now = Now::real();
    let mut room = live_game(None, now);
    play_all(&mut room, &["a3a4", "a6a5", "e0e1", "e9e8"], now);
    // The first moves: abort instead.
    let mut early = live_game(None, now);
    play_all(&mut early, &["e0e1", "a6a5"], now);
    let (_, fx) = client(&mut early, BLACK, ClientIn::Takeback, now);
    assert_eq!(error_code(&fx, BLACK), Some(ErrorCode::TakebackRefused));

    // Red reveals a pawn: that ply cannot be taken back, alone or with the reply.
    play_all(&mut room, &["c3c4"], now);
    let (writes, fx) = client(&mut room, RED, ClientIn::Takeback, now);
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::TakebackRefused));
    assert!(writes.is_empty());
    play_all(&mut room, &["e8e9"], now);
    let (_, fx) = client(&mut room, RED, ClientIn::Takeback, now);
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::TakebackRefused));
    // Black's king move alone showed nothing.
    let (_, fx) = client(&mut room, BLACK, ClientIn::Takeback, now);
    assert_eq!(error_code(&fx, BLACK), None);
    let (writes, _) = client(&mut room, RED, ClientIn::AcceptTakeback, now);
    assert_eq!(takeback_written(&writes), Some(5));
    // Spectators cannot ask.
    let (_, fx) = client(&mut room, WATCHER, ClientIn::Takeback, now);
    assert_eq!(error_code(&fx, WATCHER), Some(ErrorCode::NotAPlayer));
}

#[test]
fn no_takebacks_in_rated_or_engine_games_and_a_stored_request_survives_a_restart() {
    let now = Now::real();
    let mut s = stored(ByColor::default(), None);
    s.new.rated = true;
    let rated = Room::from_stored(s, None, RoomLimits::default(), now).unwrap();
    assert!(!rated.takebacks_allowed());
    let engine = Room::from_stored(
        stored(
            ByColor {
                red: None,
                black: Some(1),
            },
            None,
        ),
        None,
        RoomLimits::default(),
        now,
    )
    .unwrap();
    assert!(!engine.takebacks_allowed());
    let mut tournament = live_game(None, now);
    tournament.set_tournament(true);
    play_all(&mut tournament, &["a3a4", "a6a5", "e0e1"], now);
    let (_, fx) = client(&mut tournament, RED, ClientIn::Takeback, now);
    assert_eq!(error_code(&fx, RED), Some(ErrorCode::TakebackRefused));

    // A request stored at the current ply count stands after a restart; one made at
    // another count lapsed with the move that followed it.
    let mut room = live_game(None, now);
    play_all(&mut room, &["a3a4", "a6a5", "e0e1"], now);
    let moves: Vec<MoveRecord> = room
        .game()
        .plies()
        .iter()
        .enumerate()
        .map(|(i, p)| MoveRecord {
            n: i as u32 + 1,
            uci: p.mv.to_string(),
            red_ms: 0,
            black_ms: 0,
            at_ms: 0,
        })
        .collect();
    for (stored_at, stands) in [(3, true), (2, false)] {
        let mut s = stored(ByColor::default(), None);
        s.started_ms = Some(1);
        s.new.seats.red.joined = true;
        s.new.seats.black.joined = true;
        s.moves = moves.clone();
        s.takeback = Some((Color::Red, stored_at));
        let back = Room::from_stored(s, None, RoomLimits::default(), now).unwrap();
        assert_eq!(back.status(), Status::Live);
        let offer = state_of(&back, Viewer::BLACK, now).takeback.offer;
        assert_eq!(offer.is_some(), stands, "stored at {stored_at}");
    }
}
