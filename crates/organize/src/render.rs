//! Maps as Markdown outlines and as one self-contained HTML page.

use crate::MapNode;
use std::fmt::Write;

/// An indented plain-text outline: each node's id, name, paper count and relevance.
pub fn outline(map: &MapNode) -> String {
    let mut out = format!("{} — {}\n", map.name, map.description);
    for theme in &map.subtopics {
        outline_node(&mut out, theme, 1);
    }
    out
}

fn outline_node(out: &mut String, node: &MapNode, depth: usize) {
    let count = match node.paper_ids.len() {
        0 => String::new(),
        1 => " (1 paper)".to_string(),
        n => format!(" ({n} papers)"),
    };
    let indent = "  ".repeat(depth);
    let _ = writeln!(out, "{indent}{} {}{count}  [relevance {:.2}]", node.id, node.name, node.relevance);
    for child in &node.subtopics {
        outline_node(out, child, depth + 1);
    }
}

/// A Markdown outline: headings for themes and subtopics, papers as list items.
pub fn markdown(map: &MapNode) -> String {
    let mut out = format!("# {}\n\n{}\n", map.name, map.description);
    for node in &map.subtopics {
        write_markdown(node, 2, &mut out);
    }
    out
}

fn write_markdown(node: &MapNode, level: usize, out: &mut String) {
    let hashes = "#".repeat(level.min(6));
    let _ = write!(out, "\n{hashes} {}\n\n_{}_ (relevance {:.2})\n", node.name, node.description, node.relevance);
    if !node.papers.is_empty() {
        out.push('\n');
        for (i, (title, year)) in node.papers.iter().zip(&node.years).enumerate() {
            let year = year.map(|y| format!(" ({y})")).unwrap_or_default();
            let mark = if node.is_retracted(i) { " — **retracted**" } else { "" };
            let _ = writeln!(out, "- {title}{year}{mark}");
        }
    }
    if !node.also.is_empty() {
        out.push('\n');
        for member in &node.also {
            let _ = writeln!(out, "- _(also here, membership {:.2})_ {}", member.weight, member.title);
        }
    }
    for child in &node.subtopics {
        write_markdown(child, level + 1, out);
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// One HTML page, no external resources: collapsible themes and subtopics; each paper shows its
/// year and opens to its abstract.
pub fn html(map: &MapNode, notes: &[String]) -> String {
    let notes: String = notes.iter().map(|note| format!("<p class=\"note\">{}</p>\n", escape(note))).collect();
    let mut body = String::new();
    for node in &map.subtopics {
        write_html(node, &mut body);
    }
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} — litnav map</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d232b;line-height:1.45}}
h1{{font-size:1.6rem;margin-bottom:.2rem}} .lead{{color:#4a5563;margin-top:0}}
details{{margin:.35rem 0 .35rem .2rem}} details details{{margin-left:1.2rem}}
summary{{cursor:pointer;padding:.25rem .4rem;border-radius:.3rem}} summary:hover{{background:#eef2f7}}
.node>summary{{font-weight:600}} .count{{color:#6b7785;font-weight:400;font-size:.9em}}
.desc{{color:#4a5563;margin:.2rem 0 .4rem 1.4rem;font-size:.95em}}
.paper>summary{{font-weight:400}} .year{{color:#6b7785}} .abstract{{margin:.3rem 0 .6rem 1.6rem;font-size:.92em;color:#333c47}}
.also{{margin:.2rem 0 .2rem 1.6rem;font-size:.92em;color:#4a5563;font-style:italic}}
.note{{color:#6b7785;font-size:.85em;margin:.2rem 0}}
.retracted{{color:#fff;background:#b42318;border-radius:.25rem;padding:0 .3rem;font-size:.8em;font-weight:600}}
</style></head><body>
<h1>{title}</h1><p class="lead">{description}</p>
{notes}{body}<p class="lead" style="margin-top:2rem;font-size:.85em">Made by litnav. Click a theme or subtopic to open it, a paper to read its abstract.</p>
</body></html>
"#,
        title = escape(&map.name),
        description = escape(&map.description),
        notes = notes,
        body = body
    )
}

fn write_html(node: &MapNode, out: &mut String) {
    let count = crate::size(node);
    let _ = write!(
        out,
        "<details class=\"node\" id=\"{}\"><summary>{} <span class=\"count\">· {count} papers · relevance {:.2}</span></summary><p class=\"desc\">{}</p>",
        escape(&node.id),
        escape(&node.name),
        node.relevance,
        escape(&node.description)
    );
    for child in &node.subtopics {
        write_html(child, out);
    }
    let weights = node.paper_weights.iter().map(Some).chain(std::iter::repeat(None));
    for (i, (((title, year), abstract_text), weight)) in
        node.papers.iter().zip(&node.years).zip(&node.abstracts).zip(weights).enumerate()
    {
        let mut year = year.map(|y| format!(" <span class=\"year\">({y})</span>")).unwrap_or_default();
        if node.is_retracted(i) {
            year.push_str(" <span class=\"retracted\">retracted</span>");
        }
        // A paper the mixture places here with little confidence says so.
        if let Some(w) = weight.filter(|w| **w < 0.9) {
            let _ = write!(year, " <span class=\"year\">· membership {w:.2}</span>");
        }
        let text = abstract_text.as_deref().unwrap_or("No abstract available.");
        let _ = write!(
            out,
            "<details class=\"paper\"><summary>{}{year}</summary><p class=\"abstract\">{}</p></details>",
            escape(title),
            escape(text)
        );
    }
    // Papers whose first home is another subtopic: listed after this one's own, marked.
    for member in &node.also {
        let _ = write!(
            out,
            "<p class=\"also\">also here <span class=\"year\">· membership {:.2}</span> — {}</p>",
            member.weight,
            escape(&member.title)
        );
    }
    out.push_str("</details>\n");
}
