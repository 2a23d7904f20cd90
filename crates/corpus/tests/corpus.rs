//! Integration tests of the corpus crate: the real datasets, hand-written OpenAlex and BibTeX
//! files, deduplication, the corpus directory's guarantees, and bad input.

#![allow(clippy::unwrap_used)] // Tests fail loudly by design.

use litnav_corpus::{Corpus, Error, Format, IngestOutcome, ReadOptions, ingest_files, readers, title_id};
use std::io::Write;
use std::path::{Path, PathBuf};

use litnav_testkit::datasets;

fn fixture(name: &str) -> PathBuf {
    litnav_testkit::package_dir().join("tests/fixtures").join(name)
}

fn ingest(dir: &Path, files: &[PathBuf]) -> litnav_corpus::Result<IngestOutcome> {
    ingest_files(dir, files, ReadOptions::default(), |_| Ok(vec![]))
}

/// A temporary file with the given content.
fn temp_file(dir: &Path, name: &str, content: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::File::create(&path).and_then(|mut f| f.write_all(content)).expect("write temp file");
    path
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn litbench_ingests_completely() {
    let dir = tempfile::tempdir().unwrap();
    let litbench = datasets().join("litbench");
    let outcome = ingest(dir.path(), &[litbench.join("corpus.jsonl"), litbench.join("topics.jsonl")]).unwrap();
    assert_eq!(outcome.manifest.papers, 3967);
    assert_eq!(outcome.manifest.topics, 19);
    let corpus = Corpus::open(dir.path()).unwrap();
    // Every expert reference of every topic resolves to a corpus paper.
    for topic in corpus.topics() {
        assert!(topic.unresolved_references.is_empty(), "{}: {:?}", topic.id, topic.unresolved_references);
        assert!(!topic.reference_ids.is_empty());
    }
    let cs01 = corpus.topics().iter().find(|t| t.id == "cs_01").unwrap();
    assert_eq!((cs01.year, cs01.reference_ids.len()), (Some(2023), 244));
    assert!(cs01.outline.is_some());
    let taxo = corpus.topics().iter().find(|t| t.id == "taxo_1").unwrap();
    assert!(taxo.taxonomy.is_some());
    // Ids are litbench's own; fields survive.
    let paper = corpus.papers().unwrap().iter().find(|p| p.id == "p002addd960ec").unwrap();
    assert_eq!(paper.authors, vec!["B. Seibel"]);
    assert_eq!(paper.citation_count, Some(347));
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn taxobench_papers_merge_into_litbench_by_title() {
    let dir = tempfile::tempdir().unwrap();
    let taxobench = datasets().join("taxobench/data.jsonl");
    let alone = ingest(dir.path(), std::slice::from_ref(&taxobench)).unwrap();
    assert_eq!(alone.report.paper_records, 226);
    assert_eq!(alone.manifest.topics, 5);
    let corpus = Corpus::open(dir.path()).unwrap();
    let gt_papers: usize = corpus.topics().iter().map(|t| t.reference_ids.len()).sum();
    assert_eq!(gt_papers, 226, "every pdf of every instance is a reference of its topic");
    let topic = corpus.topics().iter().find(|t| t.id == "taxobench:28").unwrap();
    assert_eq!(topic.taxonomy.as_ref().unwrap()["name"], "4_A Survey on Uncertainty Quantification of Large Language");
    // Derived ids follow litbench's rule, so adding litbench merges rather than duplicates.
    let underived: Vec<(&str, &str)> = corpus
        .papers()
        .unwrap()
        .iter()
        .filter(|p| p.id != title_id(&p.title))
        .map(|p| (p.id.as_str(), p.title.as_str()))
        .collect();
    assert!(underived.is_empty(), "ids not derived from their titles: {underived:?}");

    let both = tempfile::tempdir().unwrap();
    let outcome = ingest(both.path(), &[datasets().join("litbench/corpus.jsonl"), taxobench]).unwrap();
    assert_eq!(outcome.manifest.papers, 3967, "TaxoBench's papers are all in litbench");
    assert_eq!(outcome.report.papers_merged, 226);
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn aan_counts_come_out_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let aan = datasets().join("citations/aan");
    // Edge list first on purpose: papers are merged before edges whatever the order.
    let outcome = ingest(dir.path(), &[aan.join("citations.csv"), aan.join("papers.jsonl")]).unwrap();
    assert_eq!(outcome.manifest.papers, 18_041);
    assert_eq!(outcome.manifest.edges, 82_898);
    assert_eq!(outcome.manifest.external_references, 0);
    assert_eq!(outcome.report.edges_dropped_unknown_citing, 0);
    let corpus = Corpus::open(dir.path()).unwrap();
    let penn = corpus.papers().unwrap().iter().filter(|p| p.references.iter().any(|r| r == "J93-2004")).count();
    assert_eq!(penn, 770, "the Penn Treebank's in-corpus citations");
    // Re-ingesting the same files changes nothing but the generation.
    let again = ingest(dir.path(), &[aan.join("papers.jsonl"), aan.join("citations.csv")]).unwrap();
    assert_eq!((again.manifest.papers, again.manifest.edges, again.manifest.generation), (18_041, 82_898, 2));
    assert_eq!(again.report.papers_added, 0);
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn citeseer_counts() {
    let dir = tempfile::tempdir().unwrap();
    let citeseer = datasets().join("citations/citeseer");
    let outcome = ingest(dir.path(), &[citeseer.join("papers.jsonl"), citeseer.join("citations.csv")]).unwrap();
    assert_eq!((outcome.manifest.papers, outcome.manifest.edges), (3186, 4277));
}

#[test]
fn openalex_works_are_read_per_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    ingest(dir.path(), &[fixture("openalex_works.jsonl")]).unwrap();
    let corpus = Corpus::open(dir.path()).unwrap();
    let papers = corpus.papers().unwrap();
    assert_eq!(papers.len(), 3);
    let attention = &papers[0];
    assert_eq!(attention.title, "Attention Is All You Need");
    assert_eq!(attention.id, title_id("Attention Is All You Need"));
    assert_eq!(
        attention.abstract_text.as_deref(),
        Some("The dominant sequence transduction models are based on complex recurrent networks.")
    );
    assert_eq!(attention.year, Some(2017));
    assert_eq!(attention.date.as_deref(), Some("2017-06-12"));
    assert_eq!(papers[1].date, None);
    assert_eq!(attention.venue.as_deref(), Some("arXiv (Cornell University)"));
    assert_eq!(attention.authors, vec!["Ashish Vaswani", "Noam Shazeer", "Illia Polosukhin"]);
    assert_eq!(attention.citation_count, Some(100_000));
    assert_eq!(attention.ids["openalex"], "W2963403868");
    assert_eq!(attention.ids["doi"], "10.48550/arxiv.1706.03762");
    assert_eq!(attention.ids["arxiv"], "1706.03762");
    assert_eq!(attention.ids["mag"], "2963403868");
    assert!(!attention.is_survey);
    // W1902237438 is in the corpus, W9999999999 is not.
    assert_eq!(attention.references, vec![papers[1].id.clone()]);
    assert_eq!(attention.external_references, vec!["W9999999999"]);
    assert_eq!(papers[1].title, "Neural Machine Translation by Jointly Learning to Align and Translate");
    assert_eq!(papers[1].abstract_text, None);
    assert_eq!(papers[1].venue, None);
    let survey = &papers[2];
    assert!(survey.is_survey, "type review marks a survey");
    assert_eq!(
        survey.abstract_text.as_deref(),
        Some("Large language models are popular and models evaluating them matters.")
    );
    assert_eq!(survey.references, vec![attention.id.clone()]);
}

/// Works shaped as OpenAlex really answers: markup and entities in a title, an abstract and a
/// venue; nulls where the documented object allows them; front matter, a retracted work, a
/// language; a work with no title at all.
#[test]
fn openalex_works_as_the_api_really_answers_them_are_read_clean() {
    let works = [
        r#"{"id":"https://openalex.org/W1","title":"Wing growth in <i>Drosophila</i> &amp; CO<sub>2</sub>","display_name":"Wing growth in <i>Drosophila</i> &amp; CO<sub>2</sub>","abstract_inverted_index":{"<i>Drosophila</i>":[0],"wings":[1],"grow&#x2014;fast.":[2]},"primary_location":{"source":{"display_name":"Genes &amp; Development"}},"authorships":[{"author":null,"raw_author_name":"A. <b>Smith</b>"}],"type":"article","is_paratext":false,"is_retracted":true,"language":"en","publication_year":2001}"#,
        r#"{"id":"https://openalex.org/W2","title":"Front matter","display_name":"Front matter","type":"article","is_paratext":true,"primary_location":null,"authorships":null,"referenced_works":null,"abstract_inverted_index":null,"publication_year":null,"publication_date":null,"doi":null,"language":null}"#,
        r#"{"id":"https://openalex.org/W3","title":"Correction to: a study","type":"erratum","primary_location":{"source":null}}"#,
        r#"{"id":"https://openalex.org/W4","title":null,"display_name":null,"type":"article"}"#,
    ];
    let dir = tempfile::tempdir().unwrap();
    let file = temp_file(dir.path(), "works.jsonl", works.join("\n").as_bytes());
    // Without --skip-bad the work with no title is named by line and field; with it, skipped.
    let error = ingest(&dir.path().join("strict"), std::slice::from_ref(&file)).unwrap_err().to_string();
    assert!(error.contains(":4") && error.contains("title") && error.contains("needs a title"), "{error}");
    let skipping = ReadOptions { skip_bad: true, ..ReadOptions::default() };
    let outcome = ingest_files(&dir.path().join("c"), &[file], skipping, |_| Ok(vec![])).unwrap();
    assert_eq!(outcome.files[0].2.len(), 1, "the untitled work is reported as skipped");
    let corpus = Corpus::open(&dir.path().join("c")).unwrap();
    let papers = corpus.papers().unwrap();
    assert_eq!(papers.len(), 3);
    let fly = &papers[0];
    assert_eq!(fly.title, "Wing growth in Drosophila & CO2");
    assert_eq!(fly.abstract_text.as_deref(), Some("Drosophila wings grow—fast."));
    assert_eq!(fly.venue.as_deref(), Some("Genes & Development"));
    assert_eq!(fly.authors, ["A. Smith"]);
    assert!(fly.retracted);
    assert_eq!((fly.work_type.as_deref(), fly.language.as_deref()), (Some("article"), Some("en")));
    assert!(fly.kept_in_maps(None));
    let front = &papers[1];
    assert_eq!(front.work_type.as_deref(), Some("paratext"), "is_paratext makes the type paratext");
    assert!(!front.kept_in_maps(None) && front.kept_in_maps(Some(&["paratext".to_string()])));
    assert_eq!((front.year, &front.venue, front.authors.len()), (None, &None, 0));
    assert!(!papers[2].kept_in_maps(None), "an erratum stays out of maps");
    assert!(!papers[2].kept_in_maps(Some(&["article".to_string()])));
}

#[test]
fn gzipped_openalex_reads_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let plain = std::fs::read(fixture("openalex_works.jsonl")).unwrap();
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&plain).unwrap();
    let gz = temp_file(dir.path(), "part_000.gz", &encoder.finish().unwrap());
    assert_eq!(readers::detect(&gz).unwrap(), Format::OpenAlex);
    let corpus_dir = dir.path().join("corpus");
    ingest(&corpus_dir, &[gz]).unwrap();
    let from_gz = Corpus::open(&corpus_dir).unwrap();
    let plain_dir = dir.path().join("plain");
    ingest(&plain_dir, &[fixture("openalex_works.jsonl")]).unwrap();
    assert_eq!(from_gz.papers().unwrap(), Corpus::open(&plain_dir).unwrap().papers().unwrap());
}

#[test]
fn openalex_api_pages_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let works: Vec<serde_json::Value> = std::fs::read_to_string(fixture("openalex_works.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let page = serde_json::json!({"meta": {"count": 3}, "results": works});
    let file = temp_file(dir.path(), "page.json", serde_json::to_string_pretty(&page).unwrap().as_bytes());
    let contents = readers::read_file(&file, ReadOptions::default()).unwrap();
    assert_eq!(contents.format, Some(Format::OpenAlex));
    assert_eq!(contents.items.len(), 3);
}

#[test]
fn bibtex_is_read_and_merges_with_openalex() {
    let dir = tempfile::tempdir().unwrap();
    let outcome = ingest(dir.path(), &[fixture("openalex_works.jsonl"), fixture("references.bib")]).unwrap();
    // "Attention is All you Need" from BibTeX merges into OpenAlex's record (arXiv id and title).
    assert_eq!(outcome.report.papers_merged, 1);
    let corpus = Corpus::open(dir.path()).unwrap();
    assert_eq!(corpus.len(), 5);
    let attention = &corpus.papers().unwrap()[0];
    assert_eq!(attention.ids["bibtex"], "vaswani2017attention");
    assert_eq!(attention.authors.len(), 3, "OpenAlex's authors were first and stay");
    let bert = corpus
        .papers()
        .unwrap()
        .iter()
        .find(|p| p.ids.get("bibtex").map(String::as_str) == Some("devlin-etal-2019-bert"))
        .unwrap();
    assert_eq!(bert.title, "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding");
    assert_eq!(bert.authors, vec!["Jacob Devlin", "Ming-Wei Chang", "Kenton Lee", "Kristina Toutanova"]);
    assert_eq!(
        bert.venue.as_deref(),
        Some("Proceedings of the Annual Meeting of the Association for Computational Linguistics (NAACL)")
    );
    assert_eq!(bert.year, Some(2019));
    assert_eq!(bert.ids["doi"], "10.18653/v1/n19-1423");
    assert_eq!(bert.abstract_text.as_deref(), Some("We introduce a new language representation model called BERT."));
    let kernels = corpus.papers().unwrap().iter().find(|p| p.year == Some(2002)).unwrap();
    assert_eq!(kernels.authors, vec!["Bernhard Schölkopf", "Alexander J. Smola"]);
    assert!(kernels.title.starts_with("Learning with Kernels: Support Vector Machines"));
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn ingest_is_deterministic() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let files = [datasets().join("taxobench/data.jsonl"), fixture("references.bib"), fixture("openalex_works.jsonl")];
    ingest(a.path(), &files).unwrap();
    ingest(b.path(), &files).unwrap();
    let read = |dir: &Path| std::fs::read(dir.join("gen-000001/papers.jsonl")).unwrap();
    assert_eq!(read(a.path()), read(b.path()));
}

#[test]
fn same_title_different_source_ids_stay_apart() {
    let dir = tempfile::tempdir().unwrap();
    let file = temp_file(
        dir.path(),
        "p.jsonl",
        br#"{"id": "A1", "title": "SemEval-2010 Task 2: Cross-Lingual Lexical Substitution", "year": 2009}
{"id": "A2", "title": "SemEval-2010 Task 2: Cross-Lingual Lexical Substitution", "year": 2010}
{"title": "SemEval 2010 task 2 - cross-lingual lexical substitution", "year": 2010, "doi": "10.1/x"}
{"title": "Introduction", "year": 1990}
{"title": "Introduction", "year": 2005}
"#,
    );
    let outcome = ingest(&dir.path().join("c"), &[file]).unwrap();
    assert_eq!(outcome.manifest.papers, 4);
    let corpus = Corpus::open(&dir.path().join("c")).unwrap();
    let ids: Vec<&str> = corpus.papers().unwrap().iter().map(|p| p.id.as_str()).collect();
    assert_eq!(&ids[..2], ["A1", "A2"]);
    assert_eq!(corpus.papers().unwrap()[0].ids["doi"], "10.1/x", "the id-less record merged into the first match");
    assert_ne!(ids[2], ids[3], "same title, years apart: two papers with distinct derived ids");
}

#[test]
fn extending_resolves_earlier_external_references() {
    let dir = tempfile::tempdir().unwrap();
    let first = temp_file(dir.path(), "a.jsonl", br#"{"id": "a", "title": "Citing paper", "references": ["b", "c"]}"#);
    let second = temp_file(dir.path(), "b.jsonl", br#"{"id": "b", "title": "Cited paper"}"#);
    let corpus_dir = dir.path().join("c");
    let one = ingest(&corpus_dir, &[first]).unwrap();
    assert_eq!((one.manifest.edges, one.manifest.external_references), (0, 2));
    let two = ingest(&corpus_dir, &[second]).unwrap();
    assert_eq!((two.manifest.edges, two.manifest.external_references), (1, 1));
    assert_eq!(Corpus::open(&corpus_dir).unwrap().papers().unwrap()[0].references, vec!["b"]);
}

/// The error message of ingesting `content` as file `name`.
fn ingest_error(name: &str, content: &[u8]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = temp_file(dir.path(), name, content);
    let corpus_dir = dir.path().join("c");
    let error = ingest(&corpus_dir, &[file]).expect_err("bad input must fail");
    assert!(!corpus_dir.join("manifest.json").exists(), "a failed ingest must not create a corpus");
    error.to_string()
}

#[test]
fn bad_input_names_file_line_and_field() {
    let cases: [(&str, &[u8], &str); 13] = [
        (
            "a.jsonl",
            b"{\"id\": \"x\", \"title\": \"ok\"}\n{\"id\": \"y\", \"title\": \"broken\"\n",
            "a.jsonl:2: is not valid JSON",
        ),
        (
            "a.jsonl",
            b"{\"id\": \"x\", \"title\": \"ok\"}\n\n{\"id\": \"y\", \"abstract\": \"no title\"}\n",
            "a.jsonl:3: field `title`: is missing",
        ),
        (
            "a.jsonl",
            b"{\"id\": \"x\", \"title\": \"ok\", \"year\": \"soon\"}\n",
            "a.jsonl:1: field `year`: expected a year",
        ),
        (
            "a.jsonl",
            b"{\"id\": \"x\", \"title\": \"ok\", \"date\": \"2023-02-29\"}\n",
            "a.jsonl:1: field `date`: expected a date as YYYY-MM-DD, found \"2023-02-29\"",
        ),
        (
            "a.jsonl",
            b"{\"id\": \"x\", \"title\": \"ok\", \"authors\": [\"A\", 3.5, {}]}\n",
            "a.jsonl:1: field `authors[2]`: expected a string",
        ),
        (
            "a.jsonl",
            b"{\"id\": \"x\", \"title\": \"ok\"}\n{\"id\": \"y\", \"title\": \"caf\xe9\"}\n",
            "a.jsonl:2: is not valid UTF-8",
        ),
        ("a.jsonl", b"\xff\xfe{\x00", "is UTF-16 encoded"),
        ("a.jsonl", b"", "is empty"),
        ("a.jsonl", b"\n  \n", "is empty"),
        ("a.txt", b"hello world\n", "unknown input format"),
        ("a.jsonl", b"{\"name\": \"no known field\"}\n", "unknown input format"),
        ("e.csv", b"from,to\na,b\n", "e.csv:1: the header must name the columns `citing_id` and `cited_id`"),
        (
            "r.bib",
            b"@article{k1, title={Fine}, year=2020}\n\n@article{k2,\n  author={Nobody},\n  year={2021}\n}\n",
            "r.bib:3: field `title`: entry `k2` has no title",
        ),
    ];
    for (name, content, expected) in cases {
        let message = ingest_error(name, content);
        assert!(message.contains(expected), "{name}: expected `{expected}` in `{message}`");
    }
}

#[test]
fn taxobench_and_openalex_errors_name_nested_fields() {
    let message = ingest_error("data.jsonl", br#"{"id": 1, "survey_topic": "T", "pdfs": [{"title": "A", "abs": "x"}, {"abs": "no title"}], "gt": {"name": "T"}}"#);
    assert!(message.contains("data.jsonl:1: field `pdfs[1].title`: is missing"), "{message}");
    let message = ingest_error(
        "w.jsonl",
        br#"{"id": "https://openalex.org/W1", "title": "T", "authorships": [{"author": "Jane"}]}"#,
    );
    assert!(message.contains("w.jsonl:1: field `authorships[0].author`: expected a JSON object"), "{message}");
    let message = ingest_error(
        "w.jsonl",
        br#"{"id": "https://openalex.org/W1", "title": "T", "abstract_inverted_index": {"word": [-1]}}"#,
    );
    assert!(message.contains("field `abstract_inverted_index.word`"), "{message}");
}

#[test]
fn bibtex_syntax_errors_name_the_line() {
    let message = ingest_error("r.bib", b"@article{k1,\n  title = {Unclosed,\n  year = 2020\n}\n");
    assert!(message.contains("r.bib:5: the entry starting at line 1 is not closed"), "{message}");
    let message = ingest_error("r.bib", b"@article{k1,\n  title = {Fine},\n  note = \"unclosed\n}\n");
    assert!(message.contains("r.bib:5: the quote opened at line 3 is never closed"), "{message}");
    let message = ingest_error("r.bib", b"@article{k1, title = undefinedmacro}\n");
    assert!(message.contains("field `title`: uses the undefined @string macro `undefinedmacro`"), "{message}");
}

#[test]
fn skip_bad_counts_and_explains() {
    let dir = tempfile::tempdir().unwrap();
    let file = temp_file(
        dir.path(),
        "p.jsonl",
        b"{\"id\": \"1\", \"title\": \"Good one\"}\nnot json\n{\"id\": \"2\"}\n{\"id\": \"3\", \"title\": \"Good two\"}\n{\"id\": \"4\", \"title\": \"bad \xff\"}\n",
    );
    let options = ReadOptions { skip_bad: true, ..ReadOptions::default() };
    let outcome = ingest_files(&dir.path().join("c"), &[file], options, |_| Ok(vec![])).unwrap();
    assert_eq!(outcome.manifest.papers, 2);
    let skipped = &outcome.files[0].2;
    assert_eq!(skipped.len(), 3);
    let reasons: Vec<String> = skipped.iter().map(|e| e.to_string()).collect();
    assert!(reasons[0].contains("p.jsonl:2: is not valid JSON"), "{reasons:?}");
    assert!(reasons[1].contains("p.jsonl:3: field `title`: is missing"), "{reasons:?}");
    assert!(reasons[2].contains("p.jsonl:5: is not valid UTF-8"), "{reasons:?}");
}

#[test]
fn versions_other_than_ours_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let file = temp_file(dir.path(), "p.jsonl", br#"{"id": "1", "title": "A paper"}"#);
    let corpus_dir = dir.path().join("c");
    ingest(&corpus_dir, &[file]).unwrap();
    let manifest_path = corpus_dir.join("manifest.json");
    let manifest = std::fs::read_to_string(&manifest_path).unwrap();
    for (version, advice) in [(2, "upgrade litnav"), (0, "re-ingest")] {
        std::fs::write(&manifest_path, manifest.replace("\"version\": 1", &format!("\"version\": {version}"))).unwrap();
        let error = Corpus::open(&corpus_dir).unwrap_err();
        assert!(matches!(error, Error::Version { found, .. } if found == version));
        let message = error.to_string();
        assert!(
            message.contains(&format!("corpus format version {version} is not supported")) && message.contains(advice),
            "{message}"
        );
    }
}

#[test]
fn foreign_directories_and_missing_corpora_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    temp_file(dir.path(), "thesis.tex", b"precious");
    let file = temp_file(&dir.path().join(".."), "litnav-test-paper.jsonl", br#"{"id": "1", "title": "A paper"}"#);
    let error = ingest(dir.path(), std::slice::from_ref(&file)).unwrap_err().to_string();
    assert!(error.contains("is not empty and holds no litnav corpus"), "{error}");
    assert_eq!(std::fs::read(dir.path().join("thesis.tex")).unwrap(), b"precious");
    std::fs::remove_file(file).ok();
    let error = Corpus::open(&dir.path().join("nothing-here")).unwrap_err().to_string();
    assert!(error.contains("does not exist"), "{error}");
}

#[test]
fn one_writer_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let (_writer, _) = litnav_corpus::Writer::begin(dir.path()).unwrap();
    let error = litnav_corpus::Writer::begin(dir.path()).unwrap_err();
    assert!(matches!(error, Error::Locked { .. }), "{error}");
}

#[test]
fn a_failed_artifact_build_leaves_the_previous_generation() {
    let dir = tempfile::tempdir().unwrap();
    let first = temp_file(dir.path(), "a.jsonl", br#"{"id": "a", "title": "First paper"}"#);
    let second = temp_file(dir.path(), "b.jsonl", br#"{"id": "b", "title": "Second paper"}"#);
    let corpus_dir = dir.path().join("c");
    ingest(&corpus_dir, &[first]).unwrap();
    let failing = ingest_files(&corpus_dir, std::slice::from_ref(&second), ReadOptions::default(), |_| {
        Err(Error::Artifact { name: "lexical".into(), source: "disk full".into() })
    });
    assert!(failing.is_err());
    let corpus = Corpus::open(&corpus_dir).unwrap();
    assert_eq!((corpus.len(), corpus.manifest().generation), (1, 1));
    // The next writer cleans up the abandoned staging directory and succeeds.
    let outcome = ingest(&corpus_dir, &[second]).unwrap();
    assert_eq!(outcome.manifest.papers, 2);
    let entries: Vec<String> =
        std::fs::read_dir(&corpus_dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    assert!(entries.iter().all(|e| !e.contains("staging")), "{entries:?}");
}

#[test]
fn atomic_writes_accept_bare_file_names() {
    let dir = tempfile::tempdir().unwrap();
    let previous = std::env::current_dir().unwrap();
    std::env::set_current_dir(dir.path()).unwrap();
    let result = litnav_corpus::store::write_atomically(Path::new("out.json"), b"{}");
    std::env::set_current_dir(previous).unwrap();
    result.unwrap();
    assert_eq!(std::fs::read(dir.path().join("out.json")).unwrap(), b"{}");
}

#[test]
fn a_reader_keeps_its_generation_through_commits() {
    let dir = tempfile::tempdir().unwrap();
    let corpus_dir = dir.path().join("c");
    let file = |name: &str, id: &str| {
        temp_file(dir.path(), name, format!("{{\"id\": \"{id}\", \"title\": \"Paper {id}\"}}").as_bytes())
    };
    ingest(&corpus_dir, &[file("a.jsonl", "a")]).unwrap();
    let reader = Corpus::open(&corpus_dir).unwrap();
    let leased = reader.generation_dir();
    // Two commits while the reader holds generation 1: it stays, whole, and readable.
    ingest(&corpus_dir, &[file("b.jsonl", "b")]).unwrap();
    ingest(&corpus_dir, &[file("c.jsonl", "c")]).unwrap();
    assert!(leased.join("papers.jsonl").is_file(), "a leased generation is not collected");
    assert_eq!(std::fs::read_to_string(leased.join("papers.jsonl")).unwrap().lines().count(), 1);
    assert_eq!(reader.len(), 1);
    let current = Corpus::open(&corpus_dir).unwrap();
    assert_eq!((current.manifest().generation, current.len()), (3, 3));
    assert!(!corpus_dir.join("gen-000002").exists(), "an unleased old generation is collected");
    // Once the reader is gone, the next writer collects its generation.
    drop(reader);
    drop(current);
    ingest(&corpus_dir, &[file("d.jsonl", "d")]).unwrap();
    let generations: Vec<String> = std::fs::read_dir(&corpus_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into())
        .filter(|n: &String| n.starts_with("gen-"))
        .collect();
    assert_eq!(generations, ["gen-000004"]);
}

/// A generation left on disk by a writer that died between renaming it into place and writing the
/// manifest, held by a reader meanwhile: the next commit neither deletes nor reuses it.
#[test]
fn a_commit_never_replaces_a_generation_left_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let corpus_dir = dir.path().join("c");
    let file = |name: &str, id: &str| {
        temp_file(dir.path(), name, format!("{{\"id\": \"{id}\", \"title\": \"Paper {id}\"}}").as_bytes())
    };
    ingest(&corpus_dir, &[file("a.jsonl", "a")]).unwrap();
    let orphan = corpus_dir.join("gen-000002");
    std::fs::create_dir(&orphan).unwrap();
    std::fs::write(orphan.join("papers.jsonl"), "held by a reader\n").unwrap();
    let lease = std::fs::File::create(orphan.join(".lease")).unwrap();
    lease.lock_shared().unwrap();
    let outcome = ingest(&corpus_dir, &[file("b.jsonl", "b")]).unwrap();
    assert_eq!(outcome.manifest.generation, 3, "the next number above the one on disk");
    assert_eq!(std::fs::read_to_string(orphan.join("papers.jsonl")).unwrap(), "held by a reader\n");
    assert_eq!(Corpus::open(&corpus_dir).unwrap().len(), 2);
    // Released, it is collected like any old generation.
    drop(lease);
    ingest(&corpus_dir, &[file("c.jsonl", "c")]).unwrap();
    assert!(!orphan.exists());
}

#[test]
fn errors_say_what_kind_they_are() {
    use litnav_core::{ErrorKind, HasKind};
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(Corpus::open(&dir.path().join("none")).unwrap_err().kind(), ErrorKind::NotFound);
    let bad = temp_file(dir.path(), "bad.jsonl", b"{\"id\": 1}\n");
    assert_eq!(ingest(&dir.path().join("c"), &[bad]).unwrap_err().kind(), ErrorKind::Input);
    let (_writer, _) = litnav_corpus::Writer::begin(&dir.path().join("w")).unwrap();
    assert_eq!(litnav_corpus::Writer::begin(&dir.path().join("w")).unwrap_err().kind(), ErrorKind::Conflict);
}

/// A corpus of `n` small papers (ids `w0`…, every third a paratext, each citing the one before).
fn small_corpus(dir: &Path, n: usize) -> PathBuf {
    let lines: Vec<String> = (0..n)
        .map(|i| {
            let kind = if i % 3 == 0 { "paratext" } else { "article" };
            let cites = if i > 0 { format!(r#", "references": ["w{}"]"#, i - 1) } else { String::new() };
            format!(
                r#"{{"id": "w{i}", "title": "Paper number {i}", "year": {}, "type": "{kind}"{cites}}}"#,
                2000 + i % 20
            )
        })
        .collect();
    let file = temp_file(dir, "small.jsonl", lines.join("\n").as_bytes());
    let corpus_dir = dir.join("c");
    ingest(&corpus_dir, &[file]).unwrap();
    corpus_dir
}

#[test]
fn papers_are_read_from_disk_by_id_and_position_as_the_whole_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let corpus_dir = small_corpus(dir.path(), 500);
    let generation = Corpus::open(&corpus_dir).unwrap().generation_dir();
    assert!(generation.join("papers.index").is_file(), "the index is written with the records");
    let whole = Corpus::open(&corpus_dir).unwrap().papers().unwrap().to_vec();
    let check = |corpus: &Corpus| {
        assert_eq!(corpus.len(), 500);
        for (position, paper) in whole.iter().enumerate().rev() {
            assert_eq!(corpus.position(&paper.id).unwrap(), Some(position));
            assert_eq!(corpus.paper(&paper.id).unwrap(), Some(paper));
            assert_eq!(corpus.paper_at(position).unwrap(), paper);
        }
        assert_eq!(corpus.paper("w500").unwrap(), None);
        assert_eq!(corpus.paper("").unwrap(), None);
        let error = corpus.paper_at(500).unwrap_err().to_string();
        assert!(error.contains("papers.jsonl") && error.contains("no record 501"), "{error}");
        let mut scanned = Vec::new();
        corpus
            .scan(|_, paper| {
                scanned.push(paper.clone());
                Ok(())
            })
            .unwrap();
        assert_eq!(scanned, whole);
    };
    check(&Corpus::open(&corpus_dir).unwrap());
    // A generation written before the index, and one whose index was cut short, read the same
    // through an index built in memory.
    let index = generation.join("papers.index");
    let bytes = std::fs::read(&index).unwrap();
    std::fs::write(&index, &bytes[..bytes.len() - 9]).unwrap();
    check(&Corpus::open(&corpus_dir).unwrap());
    std::fs::remove_file(&index).unwrap();
    check(&Corpus::open(&corpus_dir).unwrap());
    // Blank lines between records (a file edited by hand) are passed over by every reading.
    let records = generation.join("papers.jsonl");
    let text = std::fs::read_to_string(&records).unwrap();
    std::fs::write(&records, text.replacen('\n', "\n\n", 3)).unwrap();
    check(&Corpus::open(&corpus_dir).unwrap());
}

#[test]
fn a_record_damaged_on_disk_is_an_error_naming_its_line_when_read() {
    let dir = tempfile::tempdir().unwrap();
    let corpus_dir = small_corpus(dir.path(), 20);
    let papers = Corpus::open(&corpus_dir).unwrap().generation_dir().join("papers.jsonl");
    let text = std::fs::read_to_string(&papers).unwrap();
    // Same length, so the index still fits: the seventh record loses its closing brace.
    let seventh_end = text.match_indices('\n').nth(6).unwrap().0;
    let mut damaged = text.clone().into_bytes();
    damaged[seventh_end - 1] = b' ';
    std::fs::write(&papers, &damaged).unwrap();
    let corpus = Corpus::open(&corpus_dir).unwrap();
    assert_eq!(corpus.paper("w3").unwrap().unwrap().title, "Paper number 3", "the others read");
    for error in [corpus.paper("w6").unwrap_err(), corpus.papers().unwrap_err()] {
        let message = error.to_string();
        assert!(message.contains("papers.jsonl") && message.contains("line 7 is damaged"), "{message}");
    }
    // Cut at a line boundary: the manifest's count catches it when the index cannot be used.
    let cut: Vec<&str> = text.lines().take(19).collect();
    std::fs::write(&papers, cut.join("\n") + "\n").unwrap();
    let error = Corpus::open(&corpus_dir).unwrap_err().to_string();
    assert!(error.contains("holds 19 records, manifest.json says 20"), "{error}");
}

#[test]
fn the_manifest_counts_work_types_and_maps_leave_out_papers_from_it() {
    let dir = tempfile::tempdir().unwrap();
    let corpus_dir = small_corpus(dir.path(), 30);
    let corpus = Corpus::open(&corpus_dir).unwrap();
    let types = corpus.manifest().types.clone().unwrap();
    assert_eq!((types["paratext"], types["article"]), (10, 20));
    assert_eq!(corpus.left_out_of_maps(None).unwrap(), 10);
    assert_eq!(corpus.left_out_of_maps(Some(&["paratext".to_string()])).unwrap(), 20);
    // A manifest written before types were counted: every record is read instead, to the same count.
    let manifest_path = corpus_dir.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest_path).unwrap()).unwrap();
    manifest.as_object_mut().unwrap().remove("types");
    std::fs::write(&manifest_path, manifest.to_string()).unwrap();
    let older = Corpus::open(&corpus_dir).unwrap();
    assert!(older.manifest().types.is_none());
    assert_eq!(older.left_out_of_maps(None).unwrap(), 10);
}

#[test]
fn papers_are_found_by_the_identifiers_people_paste() {
    let dir = tempfile::tempdir().unwrap();
    let corpus_dir = dir.path().join("c");
    ingest(&corpus_dir, &[fixture("openalex_works.jsonl")]).unwrap();
    let corpus = Corpus::open(&corpus_dir).unwrap();
    let whole = corpus.papers().unwrap().to_vec();
    let mut looked_up = 0;
    for check in [Corpus::open(&corpus_dir).unwrap(), {
        std::fs::remove_file(corpus.generation_dir().join("papers.index")).unwrap();
        Corpus::open(&corpus_dir).unwrap()
    }] {
        for (position, paper) in whole.iter().enumerate() {
            for (kind, value) in &paper.ids {
                let pasted = match kind.as_str() {
                    "doi" => format!("https://doi.org/{}", value.to_uppercase()),
                    "openalex" => format!("https://openalex.org/{value}"),
                    "arxiv" => format!("arXiv:{value}v3"),
                    _ => continue,
                };
                assert_eq!(check.position_of_identifier(&pasted).unwrap(), Some(position), "{pasted}");
                looked_up += 1;
            }
        }
        assert_eq!(check.position_of_identifier("10.9999/not-here").unwrap(), None);
        assert_eq!(check.position_of_identifier("W1").unwrap(), None);
        assert_eq!(check.position_of_identifier("a title, not an identifier").unwrap(), None);
    }
    assert!(looked_up >= 8, "the fixture's works carry DOIs and OpenAlex ids: {looked_up}");
}

#[test]
fn an_index_whose_offsets_were_damaged_reads_no_other_paper() {
    let dir = tempfile::tempdir().unwrap();
    let corpus_dir = small_corpus(dir.path(), 12);
    let index = Corpus::open(&corpus_dir).unwrap().generation_dir().join("papers.index");
    let mut bytes = std::fs::read(&index).unwrap();
    // The sixth paper's offset (after the 24-byte header) moved three bytes into its line.
    let at = 24 + 8 * 5;
    let offset = u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) + 3;
    bytes[at..at + 8].copy_from_slice(&offset.to_le_bytes());
    std::fs::write(&index, &bytes).unwrap();
    let corpus = Corpus::open(&corpus_dir).unwrap();
    let message = corpus.paper_at(5).unwrap_err().to_string();
    assert!(message.contains("papers.jsonl") && message.contains("not a whole line"), "{message}");
    assert!(corpus.paper_at(4).unwrap_err().to_string().contains("not a whole line"), "its neighbour ends there");
    assert_eq!(corpus.paper_at(6).unwrap().id, "w6", "the others read");
}

/// The papers an in-memory catalog makes of `files` read whole, in the order ingest merges them.
fn merged_in_memory(files: &[PathBuf], times: usize) -> Vec<litnav_corpus::Paper> {
    let mut catalog = litnav_corpus::Catalog::default();
    let mut report = litnav_corpus::MergeReport::default();
    let mut items = Vec::new();
    for _ in 0..times {
        for file in files {
            items.extend(readers::read_file(file, ReadOptions::default()).unwrap().items);
        }
    }
    catalog.merge(items, &mut report).unwrap();
    catalog.into_parts().unwrap().0
}

#[test]
#[cfg_attr(not(feature = "datasets"), ignore = "needs ../shared/datasets and the encoder (tier `datasets`)")]
fn ingest_through_the_spill_file_merges_as_a_catalog_in_memory() {
    // litbench and TaxoBench share papers by title; AAN brings an edge list; ingesting everything
    // a second time merges every record into a paper read back from the spill file.
    let datasets = datasets();
    let files = [
        datasets.join("litbench/corpus.jsonl"),
        datasets.join("taxobench/data.jsonl"),
        datasets.join("citations/aan/papers.jsonl"),
        datasets.join("citations/aan/citations.csv"),
        datasets.join("litbench/topics.jsonl"),
    ];
    let dir = tempfile::tempdir().unwrap();
    let corpus_dir = dir.path().join("c");
    let outcome = ingest(&corpus_dir, &files).unwrap();
    assert!(outcome.report.papers_merged > 0, "{:?}", outcome.report);
    let expected = merged_in_memory(&files, 1);
    assert_eq!(Corpus::open(&corpus_dir).unwrap().papers().unwrap(), expected.as_slice());
    let again = ingest(&corpus_dir, &files).unwrap();
    assert_eq!(again.report.papers_added, 0);
    assert_eq!(Corpus::open(&corpus_dir).unwrap().papers().unwrap(), merged_in_memory(&files, 2).as_slice());
    // The spill file went with the staging directory; the facts file came with the records.
    let generation = Corpus::open(&corpus_dir).unwrap().generation_dir();
    let names: Vec<String> =
        std::fs::read_dir(&generation).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    assert!(!names.iter().any(|n| n.contains("spill")), "{names:?}");
    let corpus = Corpus::open(&corpus_dir).unwrap();
    let facts = corpus.facts().unwrap();
    assert_eq!(facts.years, corpus.papers().unwrap().iter().map(|p| p.year).collect::<Vec<_>>());
    assert_eq!(facts.surveys, corpus.papers().unwrap().iter().map(|p| p.is_survey).collect::<Vec<_>>());
}

#[test]
fn a_bad_record_met_under_the_lock_leaves_no_staging_directory() {
    let dir = tempfile::tempdir().unwrap();
    let good = temp_file(dir.path(), "a.jsonl", br#"{"id": "a", "title": "First paper"}"#);
    let bad = temp_file(dir.path(), "b.jsonl", b"{\"id\": \"b\", \"title\": \"Second\"}\n{\"id\": \n");
    let corpus_dir = dir.path().join("c");
    ingest(&corpus_dir, &[good]).unwrap();
    let error = ingest(&corpus_dir, &[bad]).unwrap_err();
    assert!(error.to_string().contains("b.jsonl:2"), "{error}");
    let corpus = Corpus::open(&corpus_dir).unwrap();
    assert_eq!((corpus.len(), corpus.manifest().generation), (1, 1));
    let entries: Vec<String> =
        std::fs::read_dir(&corpus_dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into()).collect();
    assert!(entries.iter().all(|e| !e.contains("staging")), "{entries:?}");
}
