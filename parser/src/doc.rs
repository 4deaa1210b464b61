//! `///` XML documentation comments.
//!
//! The lines of `///` comments directly before a declaration (blank lines, attributes and blanked
//! directives may sit in between) are its documentation. The XML is read leniently: `<summary>`,
//! `<param name="...">`, `<returns>` and `<remarks>` become text with inner tags removed
//! (`<see cref="X"/>` keeps `X`), whitespace collapsed and entities decoded.

use crate::ast::{DocComment, ParamDoc, Text};
use crate::preprocess::Preprocessed;

/// The `///` comment that ends right before `offset` of the preprocessed text, if any.
pub(crate) fn doc_before(pp: &Preprocessed, offset: usize) -> Option<DocComment> {
    let text = pp.text.as_str();
    let b = text.as_bytes();
    let mut end = offset.min(b.len());
    let mut lines: Vec<&str> = Vec::new();
    let mut first_start = None;
    let mut last_end = None;
    loop {
        while end > 0 && b[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        if end == 0 {
            break;
        }
        // the start of the line (every declaration asks, so memrchr rather than a byte loop)
        let start = memchr::memrchr2(b'\n', b'\r', &b[..end]).map_or(0, |p| p + 1);
        let line = text.get(start..end)?;
        let trimmed = line.trim_start();
        let Some(content) = trimmed.strip_prefix("///") else {
            break;
        };
        if content.starts_with('/') {
            break;
        }
        lines.push(content.strip_prefix(' ').unwrap_or(content));
        first_start = Some(end - trimmed.len());
        last_end.get_or_insert(end);
        end = start;
    }
    let (start, stop) = (first_start?, last_end?);
    lines.reverse();
    let mut doc = parse_doc(&lines.join("\n"));
    doc.span = Some(pp.span(start, stop));
    Some(doc)
}

/// Reads the XML of a documentation comment (the text without `///` markers).
pub fn parse_doc(raw: &str) -> DocComment {
    let mut doc = DocComment {
        raw: Text::from(raw),
        ..DocComment::default()
    };
    // Where each `<` is, found once; each element list is then read from these.
    let tags: Vec<usize> = memchr::memchr_iter(b'<', raw.as_bytes()).collect();
    let summary = elements(raw, &tags, ("<summary", "</summary"));
    let returns = elements(raw, &tags, ("<returns", "</returns"));
    let remarks = elements(raw, &tags, ("<remarks", "</remarks"));
    let params = elements(raw, &tags, ("<param", "</param"));
    if summary.is_empty() && returns.is_empty() && remarks.is_empty() && params.is_empty() {
        let text = plain(raw);
        doc.summary = (!text.is_empty()).then_some(text);
        return doc;
    }
    doc.summary = summary.first().map(|(_, t)| plain(t));
    doc.returns = returns.first().map(|(_, t)| plain(t));
    doc.remarks = remarks.first().map(|(_, t)| plain(t));
    doc.params = params
        .into_iter()
        .map(|(attrs, t)| ParamDoc {
            name: attr_value(attrs, "name").unwrap_or_default(),
            text: plain(t),
        })
        .collect();
    doc
}

/// `(attributes, inner text)` of every `<tag ...>...</tag>` (case-insensitive tag names), given
/// `("<tag", "</tag")` and the positions of every `<` in `raw`.
fn elements<'t>(
    raw: &'t str,
    tags: &[usize],
    (open, close): (&str, &str),
) -> Vec<(&'t str, &'t str)> {
    let b = raw.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(start) = find_tag(b, tags, from, open) {
        let after_name = start + open.len();
        // `<param>` must not match `<paramref>`
        if b.get(after_name).is_some_and(u8::is_ascii_alphanumeric) {
            from = after_name;
            continue;
        }
        let Some(gt) = memchr::memchr(b'>', &b[after_name..]) else {
            break;
        };
        let attrs = &raw[after_name..after_name + gt];
        let body_start = after_name + gt + 1;
        if attrs.trim_end().ends_with('/') {
            out.push((attrs.trim_end_matches('/'), ""));
            from = body_start;
            continue;
        }
        let (inner, next) = match find_tag(b, tags, body_start, close) {
            Some(at) => {
                let close_end = memchr::memchr(b'>', &b[at..]).map_or(raw.len(), |g| at + g + 1);
                (&raw[body_start..at], close_end)
            }
            None => (&raw[body_start..], raw.len()),
        };
        out.push((attrs, inner));
        from = next;
    }
    out
}

/// Where `tag` (`<name` or `</name`, lower case) next occurs in `b` at or after `from`, in
/// any case: one of the `<` positions `tags`.
fn find_tag(b: &[u8], tags: &[usize], from: usize, tag: &str) -> Option<usize> {
    let first = tags.partition_point(|&at| at < from);
    let t = tag.as_bytes();
    tags[first..].iter().copied().find(|&at| {
        // the byte after `<` first (`/` or a letter), most tags differ there
        b.get(at + 1).is_some_and(|&c| c | 0x20 == t[1] | 0x20)
            && b.get(at..at + t.len())
                .is_some_and(|s| s.eq_ignore_ascii_case(t))
    })
}

/// The value of attribute `name` (lower case) in a tag's attribute text: the first
/// `name=` in any case, then a quoted value (entities decoded) or a bare word.
fn attr_value(attrs: &str, name: &str) -> Option<Text> {
    let b = attrs.as_bytes();
    let at = (0..b.len()).find(|&i| {
        b.get(i + name.len()) == Some(&b'=')
            && b[i..i + name.len()].eq_ignore_ascii_case(name.as_bytes())
    })?;
    let rest = attrs[at + name.len() + 1..].trim_start();
    let quote = rest.chars().next()?;
    if quote == '"' || quote == '\'' {
        let body = &rest[1..];
        let end = body.find(quote)?;
        Some(Text::from(decode_entities(&body[..end])))
    } else {
        Some(Text::from(rest.split_whitespace().next()?))
    }
}

/// Inner tags removed (keeping `cref`/`langword`/`name` values), entities decoded, whitespace
/// collapsed.
fn plain(xml: &str) -> Text {
    if !xml.contains(['<', '&']) {
        return crate::tree::normalize(xml);
    }
    let mut out = String::new();
    let mut rest = xml;
    while let Some(lt) = rest.find('<') {
        out.push_str(&rest[..lt]);
        match rest[lt..].find('>') {
            Some(gt) => {
                let tag = &rest[lt + 1..lt + gt];
                for key in ["cref", "langword", "name", "href"] {
                    if tag.trim_end().ends_with('/') || tag.starts_with("see") {
                        if let Some(v) = attr_value(tag, key) {
                            out.push_str(&v);
                            break;
                        }
                    }
                }
                rest = &rest[lt + gt + 1..];
            }
            None => {
                out.push_str(&rest[lt..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    crate::tree::normalize(&decode_entities(&out))
}

/// Decodes `&lt; &gt; &amp; &quot; &apos;` and numeric character references.
pub fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let semi = after.find(';').filter(|&s| s <= 10);
        let decoded = semi.and_then(|s| {
            let name = &after[..s];
            let c = match name {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some('\u{A0}'),
                _ => {
                    let code = if let Some(hex) =
                        name.strip_prefix("#x").or_else(|| name.strip_prefix("#X"))
                    {
                        u32::from_str_radix(hex, 16).ok()
                    } else {
                        name.strip_prefix('#').and_then(|d| d.parse::<u32>().ok())
                    };
                    code.and_then(char::from_u32)
                }
            };
            c.map(|c| (c, s))
        });
        match decoded {
            Some((c, s)) => {
                out.push(c);
                rest = &after[s + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tags_and_entities() {
        let d = parse_doc(
            "<summary>Adds two\n numbers &lt;fast&gt; see <see cref=\"TCalc\"/>.</summary>\n\
             <param name=\"A\">first</param><param name='B'>second &amp; last</param>\n\
             <returns>the sum</returns><remarks>none</remarks>",
        );
        assert_eq!(
            d.summary.as_deref(),
            Some("Adds two numbers <fast> see TCalc.")
        );
        assert_eq!(d.params.len(), 2);
        assert_eq!(d.params[1].name, "B");
        assert_eq!(d.params[1].text, "second & last");
        assert_eq!(d.returns.as_deref(), Some("the sum"));
        assert_eq!(d.remarks.as_deref(), Some("none"));
    }

    #[test]
    fn untagged_text_is_summary() {
        let d = parse_doc("Just text &amp; more");
        assert_eq!(d.summary.as_deref(), Some("Just text & more"));
    }
}
