//! The cost of a login: one argon2id verification with the server's parameters
//! (docs/server.md, "Accounts"), and the hash made at sign-up.
#![allow(missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use jieqi_server::accounts::password;

fn login(c: &mut Criterion) {
    let phc = password::hash_blocking("correct horse battery");
    let mut g = c.benchmark_group("argon2id m=19MiB t=2 p=1");
    g.sample_size(20);
    g.bench_function("verify (a login)", |b| {
        b.iter(|| assert!(password::verify_blocking("correct horse battery", &phc)));
    });
    g.bench_function("hash (a sign-up)", |b| {
        b.iter(|| password::hash_blocking("correct horse battery"));
    });
    g.finish();
}

criterion_group!(benches, login);
criterion_main!(benches);
