//! TREC qrels and runs (NUL-separated), read and scored as `eval retrieval` does. Scores must be
//! finite.
#![no_main]
use libfuzzer_sys::fuzz_target;
use litnav_app::score::trec::{ScoreTable, read_qrels, read_run, score};

fuzz_target!(|data: &[u8]| {
    let [qrels, run] = litnav_fuzz::split(data, 2)[..] else { return };
    let (qrels_path, run_path) = (litnav_fuzz::file("qrels.txt", qrels), litnav_fuzz::file("run.txt", run));
    // The files' own scorer (ids borrowed from the text, lines read by block masks) and the
    // owned reading agree on whether the files score.
    let table = ScoreTable::of_files(&qrels_path, &run_path, &[1, 10, 100]);
    let (Ok(qrels), Ok(run)) = (read_qrels(&qrels_path), read_run(&run_path)) else {
        assert!(table.is_err(), "the files score, but do not read");
        return;
    };
    if let Ok(report) = score(&qrels, &run, &[1, 10, 100], true) {
        let json = serde_json::to_value(&report).expect("a report serializes");
        assert_numbers_finite(&json);
        let from_files = table.expect("the files read").report(false).mean;
        for (metric, value) in &from_files {
            let (a, b) = (value.as_f64().expect("a number"), json["mean"][metric].as_f64().expect("a number"));
            assert!((a - b).abs() <= 1e-9, "{metric}: {a} from the files, {b} read");
        }
    }
});

/// Every number in the report is finite (serde_json writes NaN as null, so check before that
/// too: a null where a number belongs is caught here as well).
fn assert_numbers_finite(value: &serde_json::Value) {
    match value {
        serde_json::Value::Number(n) => assert!(n.as_f64().is_some_and(f64::is_finite), "{n}"),
        serde_json::Value::Array(items) => items.iter().for_each(assert_numbers_finite),
        serde_json::Value::Object(fields) => fields.values().for_each(assert_numbers_finite),
        _ => {}
    }
}
