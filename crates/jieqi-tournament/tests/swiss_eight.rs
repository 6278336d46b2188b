//! A hand-worked eight-player, three-round Swiss (see docs/tournament.md, "A worked
//! example"): the pairings, colours, standings and tie-break values below were derived
//! by hand from the documented rules.

mod common;

use common::{describe_round, event, pair, result};
use jieqi_tournament::{Format, TieBreak};

const PLAYERS: [(&str, u32); 8] = [
    ("P1", 2400),
    ("P2", 2300),
    ("P3", 2200),
    ("P4", 2100),
    ("P5", 2000),
    ("P6", 1900),
    ("P7", 1800),
    ("P8", 1700),
];

#[test]
fn eight_player_swiss_by_hand() {
    let mut t = event("eight", Format::Swiss { rounds: 3 }, &PLAYERS);

    // Round 1: top half against bottom half; colours alternate down the boards.
    assert_eq!(pair(&mut t, b"r1"), 1);
    assert_eq!(describe_round(&t, 1), ["P1-P5", "P6-P2", "P3-P7", "P8-P4"]);
    for (b, r) in ["1-0", "1/2", "0-1", "0-1"].iter().enumerate() {
        t.set_result(1, b + 1, result(r), false).unwrap();
    }

    // Round 2: groups {P1,P4,P7} (1), {P2,P6} (½), {P3,P5,P8} (0). P1–P4 in the top
    // group; P7 floats and takes P6 (P2 would want Red like P7); P2 takes P3 (P5 would
    // also want Red); P5–P8.
    assert_eq!(pair(&mut t, b"r2"), 2);
    assert_eq!(describe_round(&t, 2), ["P4-P1", "P7-P6", "P2-P3", "P5-P8"]);
    for (b, r) in ["1/2", "1-0", "0-1", "1-0"].iter().enumerate() {
        t.set_result(2, b + 1, result(r), false).unwrap();
    }

    // Round 3: P7 (2) meets P1 (1½; P4 wants Black like P7); P4–P3; P5–P6 (P2 wants
    // Black like P5); P2–P8. Everyone has alternated, so each gets the other colour.
    assert_eq!(pair(&mut t, b"r3"), 3);
    assert_eq!(describe_round(&t, 3), ["P1-P7", "P3-P4", "P6-P5", "P8-P2"]);
    for (b, r) in ["0-1", "1/2", "1-0", "1/2"].iter().enumerate() {
        t.set_result(3, b + 1, result(r), false).unwrap();
    }

    let rows = t.standings();
    let names: Vec<&str> = rows
        .iter()
        .map(|r| t.players[r.player as usize].name.as_str())
        .collect();
    assert_eq!(names, ["P7", "P4", "P1", "P3", "P6", "P2", "P5", "P8"]);
    let points: Vec<f64> = rows.iter().map(|r| r.points).collect();
    assert_eq!(points, [3.0, 2.0, 1.5, 1.5, 1.5, 1.0, 1.0, 0.5]);
    assert_eq!(t.settings.tiebreaks, TieBreak::default_order());
    // Buchholz, median Buchholz, Sonneborn-Berger, wins (direct encounter: none met).
    let tb = |i: usize| rows[i].tiebreaks.clone();
    assert_eq!(tb(0)[..4], [Some(4.5), Some(1.5), Some(4.5), Some(3.0)]);
    // P1 and P3 tie on every tie-break; the ranking list (P1 first) decides.
    assert_eq!(tb(2)[..4], [Some(6.0), Some(2.0), Some(2.0), Some(1.0)]);
    assert_eq!(tb(3)[..4], [Some(6.0), Some(2.0), Some(2.0), Some(1.0)]);
    assert!(rows[2].shared && rows[3].shared && !rows[4].shared);
    assert_eq!(tb(2)[4], None);
    // P6 drops behind on Buchholz 5.
    assert_eq!(tb(4)[0], Some(5.0));
    // P2 and P5: Buchholz 3½ each, median 1½ each, Sonneborn-Berger 1 against ½.
    assert_eq!(tb(5)[..3], [Some(3.5), Some(1.5), Some(1.0)]);
    assert_eq!(tb(6)[..3], [Some(3.5), Some(1.5), Some(0.5)]);
    let places: Vec<Option<u32>> = t.places().iter().map(|p| p.place).collect();
    // P1 and P3, tied on everything, share third place.
    assert_eq!(places, [1, 2, 3, 3, 5, 6, 7, 8].map(Some).to_vec());
    assert!(t.is_finished());
}

#[test]
fn direct_encounter_orders_players_who_met() {
    let mut t = event(
        "de",
        Format::Swiss { rounds: 1 },
        &[("A", 2000), ("B", 1900), ("C", 1800), ("D", 1700)],
    );
    t.settings.tiebreaks = vec![TieBreak::DirectEncounter];
    pair(&mut t, b"x");
    // A–C and D–B (round 1: 1–3, 2–4). C beats A, B beats D: C and B tie on 1 point and
    // have not met, so the ranking list decides; A and D tie on 0 likewise.
    assert_eq!(describe_round(&t, 1), ["A-C", "D-B"]);
    t.set_result(1, 1, result("0-1"), false).unwrap();
    t.set_result(1, 2, result("0-1"), false).unwrap();
    let names: Vec<String> = t
        .standings()
        .iter()
        .map(|r| t.players[r.player as usize].name.clone())
        .collect();
    assert_eq!(names, ["B", "C", "A", "D"]);

    // Two players tied who did meet: the winner of their game goes first, ahead of
    // the ranking list.
    let wins = [
        ("A", "B"),
        ("C", "A"),
        ("A", "D"),
        ("B", "C"),
        ("B", "D"),
        ("D", "C"),
    ];
    let play = |tiebreaks: Vec<TieBreak>| {
        let mut t = event(
            "de2",
            Format::RoundRobin { cycles: 1 },
            &[("B", 2000), ("A", 1900), ("C", 1800), ("D", 1700)],
        );
        t.settings.tiebreaks = tiebreaks;
        for round in 1..=3 {
            pair(&mut t, b"y");
            for b in 0..2 {
                let g = t.rounds[round - 1].games[b].clone();
                let red = t.players[g.red as usize].name.clone();
                let black = t.players[g.black as usize].name.clone();
                let r = if wins.contains(&(red.as_str(), black.as_str())) {
                    "1-0"
                } else {
                    assert!(wins.contains(&(black.as_str(), red.as_str())));
                    "0-1"
                };
                t.set_result(round, b + 1, result(r), false).unwrap();
            }
        }
        let rows = t.standings();
        let names: Vec<String> = rows
            .iter()
            .map(|r| t.players[r.player as usize].name.clone())
            .collect();
        (names, rows)
    };
    let (names, rows) = play(vec![TieBreak::DirectEncounter]);
    // C and D tie on 1 point too, and D beat C.
    assert_eq!(names, ["A", "B", "D", "C"]);
    assert_eq!(rows[0].tiebreaks[0], Some(1.0));
    assert_eq!(rows[1].tiebreaks[0], Some(0.0));
    assert!(!rows[0].shared);
    let (names, _) = play(vec![]);
    assert_eq!(names, ["B", "A", "C", "D"]);
}
