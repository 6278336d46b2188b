//! Two players and a spectator play a game to the end over real WebSockets; every
//! message each of them received is then checked against the referee's knowledge:
//! nobody may have been told an identity its view does not allow.

mod common;

use std::collections::BTreeMap;

use common::*;
use jieqi_core::notation::{Notation, Script, write_move};
use jieqi_core::{
    Color, Deal, Game, Move, Piece, Position, Role, RuleSet, Square, UciMove, Viewer,
};
use jieqi_server::client::WsClient;
use serde_json::{Value, json};

/// Picks a move: a capture of a face-down piece when there is one (so the test
/// exercises hidden captures), else the first capture, else a varied quiet move.
fn pick(state_fen: &str, legal: &[String], ply: usize) -> String {
    let pos = Position::from_fen(state_fen).unwrap();
    let moves: Vec<Move> = legal
        .iter()
        .map(|s| UciMove::parse(s).unwrap().to_plain())
        .collect();
    if let Some(m) = moves.iter().find(|m| pos.board().is_hidden(m.to)) {
        return m.to_string();
    }
    if let Some(m) = moves.iter().find(|m| pos.piece_at(m.to).is_some()) {
        return m.to_string();
    }
    moves[(ply * 7 + 3) % moves.len()].to_string()
}

fn pools_of(pos: &Position) -> Value {
    let counts = |m: &jieqi_core::Material, c: Color| -> BTreeMap<String, u8> {
        Role::HIDDEN
            .iter()
            .filter(|&&r| m.get(c, r) > 0)
            .map(|&r| (r.upper_char().to_string(), m.get(c, r)))
            .collect()
    };
    json!({
        "red": counts(pos.pool(), Color::Red),
        "black": counts(pos.pool(), Color::Black),
        "known_captured": {
            "red": counts(pos.captured(), Color::Red),
            "black": counts(pos.captured(), Color::Black),
        }
    })
}

/// Checks one received ply against what `viewer` may know.
fn check_ply(game: &Game, viewer: Viewer, ply: &Value, who: &str) {
    let n = ply["n"].as_u64().unwrap() as usize;
    let view = game.view(viewer);
    let want = view.moves()[n - 1].to_string();
    assert_eq!(ply["uci"], want, "{who}: ply {n} suffixes");
    let referee_ply = &game.plies()[n - 1];
    let before = view.position_after(n - 1);
    let captured = match referee_ply.captured {
        None => Value::Null,
        Some(Some(r)) => json!(Piece::Up(!referee_ply.color, r).fen_char().to_string()),
        Some(None) => match view.reveals(referee_ply).captured {
            Some(r) => json!(Piece::Up(!referee_ply.color, r).fen_char().to_string()),
            None => json!(Piece::Down(!referee_ply.color).fen_char().to_string()),
        },
    };
    assert_eq!(ply["captured"], captured, "{who}: ply {n} captured");
    // The server's notations, written from this viewer's knowledge only (a WXF `xX`
    // or a Chinese 吃X naming a captured face-down piece the viewer may not know
    // would be a leak).
    // A face-down piece taken without its identity: the capture alone, 「吃暗」 / `x?`.
    let rv = view.reveals(referee_ply);
    let hidden = referee_ply.captured == Some(None) && rv.captured.is_none();
    assert_eq!(
        ply["wxf"],
        write_move(&before, referee_ply.mv, rv, Notation::Wxf) + if hidden { "x?" } else { "" },
        "{who}: ply {n} wxf"
    );
    assert_eq!(
        ply["zh"],
        write_move(
            &before,
            referee_ply.mv,
            rv,
            Notation::Chinese(Script::Simplified)
        ) + if hidden { "吃暗" } else { "" },
        "{who}: ply {n} zh"
    );
}

/// Checks every message a client received against the referee's game.
fn check_log(game: &Game, viewer: Viewer, log: &[Value], deal_text: &str, salt: &str, who: &str) {
    let mut ended = false;
    let mut states = 0;
    for m in log {
        let raw = m.to_string();
        let t = m["t"].as_str().unwrap();
        if t == "end" || (t == "state" && !m["d"]["end"].is_null()) {
            ended = true;
        }
        if !ended {
            assert!(
                !raw.contains(deal_text),
                "{who}: the deal leaked before the end: {raw}"
            );
            assert!(
                !raw.contains(salt),
                "{who}: the salt leaked before the end: {raw}"
            );
        }
        let d = &m["d"];
        let plies = match t {
            "state" => {
                states += 1;
                for p in d["moves"].as_array().unwrap() {
                    check_ply(game, viewer, p, who);
                }
                d["moves"].as_array().unwrap().len()
            }
            "move" => {
                check_ply(game, viewer, &d["ply"], who);
                d["ply"]["n"].as_u64().unwrap() as usize
            }
            "end" => {
                ended = true;
                continue;
            }
            _ => continue,
        };
        let pos = game.view(viewer).position_after(plies);
        assert_eq!(d["fen"], pos.fen(), "{who}: fen after {plies} plies");
        assert_eq!(
            d["pools"],
            pools_of(&pos),
            "{who}: pools after {plies} plies"
        );
        let legal = d["legal"].as_array().unwrap();
        let to_move = Viewer::Player(pos.turn());
        if viewer != to_move
            || plies == game.plies().len() && game.outcome().is_some() && t == "move"
        {
            // Only the player to move in a live game gets moves.
            if viewer != to_move {
                assert!(legal.is_empty(), "{who}: got legal moves out of turn");
            }
        } else if d["status"] == "live" {
            assert_eq!(legal.len(), pos.legal_moves().len(), "{who}: legal moves");
        }
    }
    assert!(ended, "{who}: never saw the end");
    assert!(states >= 1);
}

async fn drain_to(c: &mut WsClient, n: u64) {
    move_event(c, n).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_players_and_a_spectator_play_to_the_end_without_leaks() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let g = create(
        addr,
        json!({"opponent": "friend", "color": "red", "time": "none", "captured_identity": "capturer"}),
    )
    .await;
    assert_eq!(g.seat, "red");
    let (mut red, _) = join(addr, &g.id, Some(&g.token)).await;
    let (mut spec, s0) = join(addr, &g.id, None).await;
    assert_eq!(s0["d"]["you"], "spectator");
    assert_eq!(s0["d"]["status"], "waiting");
    let (mut black, _) = join(addr, &g.id, g.invite.as_deref()).await;
    // Black's joining starts the game: everyone gets a fresh state.
    let mut state = red.recv_until("state", WAIT).await.unwrap();
    assert_eq!(state["d"]["status"], "live");
    spec.recv_until("state", WAIT).await.unwrap();

    let mut n = 0u64;
    let mut hidden_captures = 0;
    let mut ended = false;
    while n < 160 {
        let turn = state["d"]["turn"].as_str().unwrap().to_string();
        let mover = if turn == "red" { &mut red } else { &mut black };
        let st = sync(mover).await;
        let legal: Vec<String> = serde_json::from_value(st["d"]["legal"].clone()).unwrap();
        assert!(!legal.is_empty());
        let fen = st["d"]["fen"].as_str().unwrap();
        let mv = pick(fen, &legal, n as usize);
        if Position::from_fen(fen)
            .unwrap()
            .board()
            .is_hidden(UciMove::parse(&mv).unwrap().to)
        {
            hidden_captures += 1;
        }
        mover
            .send(
                "move",
                json!({ "uci": mv }),
                Some(st["v"].as_u64().unwrap()),
            )
            .await
            .unwrap();
        n += 1;
        let ev = move_event(mover, n).await;
        drain_to(if turn == "red" { &mut black } else { &mut red }, n).await;
        drain_to(&mut spec, n).await;
        if ev["d"]["status"] == "finished" {
            ended = true;
            break;
        }
        state = ev;
    }
    if !ended {
        red.send("resign", Value::Null, None).await.unwrap();
    }
    let end = red.recv_until("end", WAIT).await.unwrap();
    black.recv_until("end", WAIT).await.unwrap();
    spec.recv_until("end", WAIT).await.unwrap();
    assert!(
        hidden_captures >= 2,
        "the game should capture face-down pieces"
    );

    // The deal and salt come out at the end and match the commitment published at creation.
    let d = &end["d"];
    let deal = Deal::parse(d["deal"].as_str().unwrap()).unwrap();
    let salt = d["salt"].as_str().unwrap();
    assert_eq!(d["commitment"], g.commitment);
    assert!(deal.verify_commitment(salt, &g.commitment));
    assert_eq!(d["commitment_ok"], true);

    // Rebuild the referee's game from the deal and the moves.
    let mut game = Game::new(deal, RuleSet::STANDARD);
    for m in d["moves"].as_array().unwrap() {
        game.play_uci(m.as_str().unwrap()).unwrap();
    }
    if game.outcome().is_none() {
        game.resign(Color::Red).unwrap();
    }
    assert_eq!(d["result"], game.outcome().unwrap().result_str());
    let deal_text = deal.to_string();
    check_log(&game, Viewer::RED, &red.log, &deal_text, salt, "red");
    check_log(&game, Viewer::BLACK, &black.log, &deal_text, salt, "black");
    check_log(
        &game,
        Viewer::Spectator,
        &spec.log,
        &deal_text,
        salt,
        "spectator",
    );

    // Someone joining after the end sees the whole game and the deal.
    let (_late, s) = join(addr, &g.id, None).await;
    assert_eq!(s["d"]["status"], "finished");
    assert_eq!(s["d"]["end"]["deal"], deal_text);

    // The replay API has the referee's moves, with every suffix.
    let r = jieqi_server::client::http(addr, "GET", &format!("/api/games/{}/replay", g.id), None)
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    let rv = r.json().unwrap();
    let referee = game.view(Viewer::Referee).moves();
    let got: Vec<String> = rv["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["uci"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        got,
        referee.iter().map(ToString::to_string).collect::<Vec<_>>()
    );
    assert_eq!(rv["fens"].as_array().unwrap().len(), game.plies().len());
    let _ = Square::parse("e0");
    server.shutdown().await;
}

/// Under the strict rule (`nobody`), not even the capturer learns a captured
/// face-down identity: the capturer's messages must not carry it either.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn captured_identity_nobody_hides_it_from_the_capturer() {
    let (server, _dir) = start(60_000).await;
    let addr = server.addr;
    let g = create(
        addr,
        json!({"opponent": "friend", "color": "red", "time": "none", "captured_identity": "nobody"}),
    )
    .await;
    let (mut red, _) = join(addr, &g.id, Some(&g.token)).await;
    let (mut black, _) = join(addr, &g.id, g.invite.as_deref()).await;
    red.recv_until("state", WAIT).await.unwrap();
    // The cannon on b2 jumps b7 and takes the face-down piece on b9.
    red.send("move", json!({"uci": "b2b9"}), None)
        .await
        .unwrap();
    let ev = move_event(&mut red, 1).await;
    assert_eq!(ev["d"]["ply"]["captured"], "x", "{ev}");
    assert_eq!(
        ev["d"]["ply"]["uci"].as_str().unwrap().len(),
        5,
        "only the reveal letter: {ev}"
    );
    assert_eq!(ev["d"]["pools"]["known_captured"]["black"], json!({}));
    let ev = move_event(&mut black, 1).await;
    assert_eq!(ev["d"]["ply"]["captured"], "x");
    server.shutdown().await;
}
