//! Section names a model proposes, checked: a name must say more than the topic does (three
//! quarters of its content words may not be the topic's, a survey title's opening ignored, "LLM"
//! spelled out), and a leading copy of the topic is cut off before the check.

fn normalized(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The topic without a survey title's opening ("A Comprehensive Survey on …", "A Review of …"):
/// benchmark topics are often survey titles, and names are compared with what the survey is about.
fn topic_core(topic: &str) -> String {
    const OPENING: [&str; 11] =
        ["a", "an", "the", "comprehensive", "systematic", "survey", "review", "overview", "on", "of", "to"];
    let normalized = normalized(topic);
    let words: Vec<&str> = normalized.split(' ').collect();
    let start = words.iter().position(|w| !OPENING.contains(w)).unwrap_or(0);
    words[start..].join(" ")
}

/// Content words of a text, lowercased, a final plural "s" dropped ("models" = "model"), "LLM"
/// spelled out.
fn content_words(text: &str) -> Vec<String> {
    const FUNCTION: [&str; 12] = ["a", "an", "the", "and", "or", "of", "in", "on", "for", "to", "with", "via"];
    normalized(text)
        .split(' ')
        .filter(|w| !w.is_empty() && !FUNCTION.contains(w))
        .flat_map(|w| match w {
            "llm" | "llms" => vec!["large", "language", "model"],
            _ if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") => vec![&w[..w.len() - 1]],
            _ => vec![w],
        })
        .map(str::to_string)
        .collect()
}

/// A name that says little beyond the topic: three quarters or more of its content words are the
/// topic's ("Uncertainty Quantification in Large Language Models" under "A Survey on Uncertainty
/// Quantification of Large Language Models").
fn restates_topic(name: &str, topic: &str) -> bool {
    let topic_words = content_words(&topic_core(topic));
    let words = content_words(name);
    let shared = words.iter().filter(|w| topic_words.contains(w)).count();
    !words.is_empty() && shared * 4 >= words.len() * 3
}

/// A name without a leading copy of the topic: models often write "Topic: Specific Part"; the
/// specific part is the name. Anything else is returned trimmed, unchanged.
pub fn tidy_name(name: &str, topic: &str) -> String {
    let name = name.trim();
    let topic = topic_core(topic);
    let topic_words: Vec<String> = topic.split(' ').map(str::to_string).collect();
    let words: Vec<&str> = name.split_whitespace().collect();
    if topic_words.is_empty() || words.len() <= topic_words.len() {
        return name.to_string();
    }
    let leading: Vec<String> = words[..topic_words.len()].iter().map(|w| normalized(w)).collect();
    if leading != topic_words {
        return name.to_string();
    }
    let rest = words[topic_words.len()..].join(" ");
    let rest = rest.trim_start_matches([':', '-', '—', '–', ',', ' ']);
    let rest =
        ["for ", "in ", "of ", "with ", "and "].iter().find_map(|joiner| rest.strip_prefix(joiner)).unwrap_or(rest);
    if rest.split_whitespace().count() == 0 { name.to_string() } else { rest.trim().to_string() }
}

/// Whether a name is usable: non-empty, at most 10 words, and more than a restatement of the topic.
pub fn check_name(name: &str, topic: &str) -> std::result::Result<(), String> {
    let words = name.split_whitespace().count();
    if words == 0 {
        return Err("a name is empty".into());
    }
    if words > 10 {
        return Err(format!("the name \"{name}\" is too long ({words} words; use 2 to 8)"));
    }
    if restates_topic(name, topic) {
        return Err(format!("the name \"{name}\" only repeats the topic; name what is specific to these papers"));
    }
    Ok(())
}
