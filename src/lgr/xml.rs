//! Reader for the RFC 7940 XML format.
//!
//! Parsing is strict about structure (unknown elements, bad code points,
//! reversed ranges and bad counts are errors naming line:column and element)
//! and safe: a DOCTYPE, and therefore any entity, is refused, so nothing is
//! expanded or fetched.

use super::model::*;
use crate::error::LgrError;
use roxmltree::{Document, Node, ParsingOptions};

/// The elements that define a class (RFC 7940 §6.2 and §6.3).
const CLASS_ELEMENTS: [&str; 6] =
    ["class", "union", "complement", "intersection", "difference", "symmetric-difference"];

const NS: &str = "urn:ietf:params:xml:ns:lgr-1.0";

/// Deepest element nesting accepted. ICANN's LGRs nest at most 8 deep;
/// the readers of rules and classes recurse over the nesting, so a
/// document nested thousands deep would overflow the stack.
pub const MAX_XML_DEPTH: usize = 64;

/// Most attributes accepted on one element (RFC 7940 elements have at most
/// 8, namespace declarations included). The XML parser checks each
/// attribute against all earlier ones of its element, so 100,000 attributes
/// took seconds before the first unknown one could be reported.
pub const MAX_XML_ATTRIBUTES: usize = 64;

/// Parses an LGR document from its XML text (RFC 7940 §4).
///
/// # Errors
/// Any malformed XML or RFC 7940 structure, with line:column.
pub fn parse(text: &str) -> Result<LgrDoc, LgrError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(LgrError::new("empty input: no LGR document").at(1, 1));
    }
    check_shape(text)?;
    let opts = ParsingOptions { allow_dtd: false, ..ParsingOptions::default() };
    let doc = Document::parse_with_options(text, opts).map_err(|e| {
        let pos = e.pos();
        let (row, col) = (pos.row, pos.col);
        match e {
            roxmltree::Error::DtdDetected => {
                // The parser reports the start of the prolog; point at the
                // DOCTYPE itself.
                let (row, col) =
                    text.find("<!DOCTYPE").map_or((row, col), |off| text_pos(text, off));
                LgrError::new("a DOCTYPE is not accepted in an LGR (no DTD, no entities)")
                    .at(row, col)
            }
            roxmltree::Error::UnexpectedEndOfStream => {
                let (row, col) = text_pos(text, text.len());
                LgrError::new("malformed XML: unexpected end of input (truncated document?)")
                    .at(row, col)
            }
            other => {
                // roxmltree's messages end in " at row:col", which the
                // position already says.
                let msg = other.to_string();
                let msg = msg.strip_suffix(&format!(" at {row}:{col}")).unwrap_or(&msg);
                LgrError::new(format!("malformed XML: {msg}")).at(row, col)
            }
        }
    })?;
    let mut line_starts = vec![0usize];
    line_starts.extend(text.bytes().enumerate().filter(|&(_, b)| b == b'\n').map(|(i, _)| i + 1));
    let p = Parser { doc: &doc, text, line_starts };
    p.document()
}

/// Refuses a document nested deeper than [`MAX_XML_DEPTH`] or with an
/// element of more than [`MAX_XML_ATTRIBUTES`] attributes, before the XML
/// parser sees it. A light scan of the markup: comments, CDATA sections and
/// processing instructions are skipped, quoted attribute values may hold
/// `>`. Anything it does not understand (a DOCTYPE, an unclosed construct)
/// is left to the parser, which reports it.
fn check_shape(text: &str) -> Result<(), LgrError> {
    let b = text.as_bytes();
    let find = |from: usize, pat: &[u8]| memchr::memmem::find(&b[from..], pat).map(|i| from + i);
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'<', &b[i..]) {
        let start = i + off;
        let rest = &b[start..];
        let skip_to =
            |open: usize, close: &[u8]| find(start + open, close).map(|e| e + close.len());
        let next = if rest.starts_with(b"<!--") {
            skip_to(4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            skip_to(9, b"]]>")
        } else if rest.starts_with(b"<?") {
            skip_to(2, b"?>")
        } else if rest.starts_with(b"<!") {
            None
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            skip_to(2, b">")
        } else {
            let (end, attributes) = start_tag_end(b, start + 1);
            let error = |msg: String| {
                let (line, col) = text_pos(text, start);
                LgrError::new(msg).at(line, col)
            };
            if attributes > MAX_XML_ATTRIBUTES {
                return Err(error(format!(
                    "an element with more than {MAX_XML_ATTRIBUTES} attributes"
                )));
            }
            if end.is_some_and(|e| b[e - 1] != b'/') {
                depth += 1;
                if depth > MAX_XML_DEPTH {
                    return Err(error(format!("elements nested more than {MAX_XML_DEPTH} deep")));
                }
            }
            end.map(|e| e + 1)
        };
        match next {
            Some(n) => i = n,
            None => return Ok(()),
        }
    }
    Ok(())
}

/// The offset of the `>` closing the start tag whose name begins at
/// `from` (`None` when there is none), and the number of `=` outside
/// quoted values before it: its attributes.
fn start_tag_end(b: &[u8], from: usize) -> (Option<usize>, usize) {
    let mut quote = None;
    let mut attributes = 0;
    for (k, &c) in b[from..].iter().enumerate() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'=' => attributes += 1,
                b'>' => return (Some(from + k), attributes),
                _ => {}
            },
        }
    }
    (None, attributes)
}

/// 1-based line and column (in characters) of byte offset `off` of `text`.
fn text_pos(text: &str, off: usize) -> (u32, u32) {
    let before = text.get(..off).unwrap_or(text);
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line as u32, before[start..].chars().count() as u32 + 1)
}

struct Parser<'a, 'i> {
    doc: &'a Document<'i>,
    text: &'i str,
    line_starts: Vec<usize>,
}

type R<T> = Result<T, LgrError>;

impl<'i> Parser<'_, 'i> {
    /// 1-based line and column (in characters) of a byte offset.
    fn pos(&self, off: usize) -> (u32, u32) {
        let line = self.line_starts.partition_point(|&s| s <= off);
        let start = self.line_starts[line - 1];
        let col = self.text.get(start..off).map_or(0, |t| t.chars().count()) + 1;
        (line as u32, col as u32)
    }

    fn err(&self, node: Node, msg: impl Into<String>) -> LgrError {
        let (line, col) = self.pos(node.range().start);
        let name =
            if node.is_element() { node.tag_name().name().to_string() } else { "text".into() };
        LgrError::new(msg).at(line, col).element(name)
    }

    fn line(&self, node: Node) -> u32 {
        self.line_starts.partition_point(|&s| s <= node.range().start) as u32
    }

    fn elements<'n>(&self, node: Node<'n, 'i>) -> R<Vec<Node<'n, 'i>>> {
        let mut out = Vec::new();
        for c in node.children() {
            if c.is_element() {
                let ns = c.tag_name().namespace();
                if ns.is_some() && ns != Some(NS) {
                    return Err(self.err(c, format!("element in unknown namespace {:?}", ns)));
                }
                out.push(c);
            } else if c.is_text() && c.text().is_some_and(|t| !t.trim().is_empty()) {
                return Err(self.err(node, "unexpected text content"));
            }
        }
        Ok(out)
    }

    fn check_attrs(&self, node: Node, allowed: &[&str]) -> R<()> {
        for a in node.attributes() {
            if a.namespace().is_some() {
                continue;
            }
            if !allowed.contains(&a.name()) {
                return Err(self.err(node, format!("unknown attribute '{}'", a.name())));
            }
        }
        Ok(())
    }

    fn document(&self) -> R<LgrDoc> {
        let root = self.doc.root_element();
        if root.tag_name().name() != "lgr" {
            return Err(self.err(root, "the root element must be <lgr>"));
        }
        if root.tag_name().namespace() != Some(NS) {
            return Err(self.err(root, format!("the <lgr> element must be in namespace {NS}")));
        }
        let mut doc = LgrDoc::default();
        let mut seen_data = false;
        for e in self.elements(root)? {
            match e.tag_name().name() {
                "meta" => doc.meta = self.meta(e)?,
                "data" => {
                    if seen_data {
                        return Err(self.err(e, "more than one <data> element"));
                    }
                    seen_data = true;
                    self.data(e, &mut doc.chars)?
                }
                "rules" => self.rules(e, &mut doc)?,
                other => return Err(self.err(e, format!("unknown element <{other}> in <lgr>"))),
            }
        }
        if !seen_data {
            return Err(self.err(root, "missing <data> element"));
        }
        Ok(doc)
    }

    fn text(&self, node: Node) -> String {
        node.children().filter_map(|c| c.text()).collect::<String>()
    }

    fn meta(&self, node: Node) -> R<Meta> {
        let mut m = Meta::default();
        for e in node.children().filter(|c| c.is_element()) {
            let t = self.text(e).trim().to_string();
            match e.tag_name().name() {
                "version" => {
                    m.version = Some(t);
                    m.version_comment = e.attribute("comment").map(str::to_string);
                }
                "date" => m.date = Some(t),
                "language" => m.languages.push(t),
                "scope" => m.scopes.push((e.attribute("type").unwrap_or("").to_string(), t)),
                "unicode-version" => {
                    let ok = t.split('.').count() == 3
                        && t.split('.')
                            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
                    if !ok {
                        return Err(self.err(e, format!("bad Unicode version '{t}'")));
                    }
                    m.unicode_version = Some(t)
                }
                "validity-start" => m.validity_start = Some(t),
                "validity-end" => m.validity_end = Some(t),
                "description" => {
                    m.description = Some(self.text(e));
                    m.description_type = e.attribute("type").map(str::to_string);
                }
                "references" => {
                    for r in e.children().filter(|c| c.is_element()) {
                        if r.tag_name().name() != "reference" {
                            return Err(self.err(r, "only <reference> may appear in <references>"));
                        }
                        let id = r
                            .attribute("id")
                            .ok_or_else(|| self.err(r, "missing 'id' attribute"))?;
                        m.references.push((
                            id.to_string(),
                            self.text(r).trim().to_string(),
                            r.attribute("comment").map(str::to_string),
                        ));
                    }
                }
                other => return Err(self.err(e, format!("unknown element <{other}> in <meta>"))),
            }
        }
        Ok(m)
    }

    fn cp(&self, node: Node, s: &str) -> R<Cp> {
        let ok = (4..=6).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_hexdigit());
        let v = if ok { u32::from_str_radix(s, 16).ok() } else { None };
        match v {
            Some(v) if v > 0x10FFFF => {
                Err(self.err(node, format!("bad code point '{s}': beyond U+10FFFF")))
            }
            Some(v) if (0xD800..=0xDFFF).contains(&v) => Err(self.err(
                node,
                format!("bad code point '{s}': a surrogate is not a Unicode scalar value"),
            )),
            Some(v) => Ok(v),
            None => Err(self.err(
                node,
                format!("bad code point '{s}' (4 to 6 hex digits, a Unicode scalar value)"),
            )),
        }
    }

    fn cps(&self, node: Node, attr: &str) -> R<Vec<Cp>> {
        let s = node
            .attribute(attr)
            .ok_or_else(|| self.err(node, format!("missing '{attr}' attribute")))?;
        let v: Vec<Cp> = s.split_ascii_whitespace().map(|p| self.cp(node, p)).collect::<R<_>>()?;
        if v.is_empty() {
            return Err(self.err(node, format!("empty '{attr}' attribute")));
        }
        Ok(v)
    }

    fn data(&self, node: Node, chars: &mut Vec<CharDef>) -> R<()> {
        let mut held_variants = 0;
        for e in self.elements(node)? {
            match e.tag_name().name() {
                "char" => {
                    self.check_attrs(e, &["cp", "when", "not-when", "tag", "ref", "comment"])?;
                    let cps = self.cps(e, "cp")?;
                    let mut variants = Vec::new();
                    for v in self.elements(e)? {
                        if v.tag_name().name() != "var" {
                            return Err(self.err(v, "only <var> may appear in <char>"));
                        }
                        self.check_attrs(v, &["cp", "type", "when", "not-when", "ref", "comment"])?;
                        if let Some(msg) = variant_limit(held_variants) {
                            return Err(self.err(v, msg));
                        }
                        held_variants += 1;
                        variants.push(VarDef {
                            cps: self.cps(v, "cp")?,
                            typ: v.attribute("type").map(str::to_string),
                            when: v.attribute("when").map(str::to_string),
                            not_when: v.attribute("not-when").map(str::to_string),
                            comment: v.attribute("comment").map(str::to_string),
                            line: self.line(v),
                        });
                    }
                    if e.attribute("tag").is_some() && cps.len() > 1 {
                        return Err(
                            self.err(e, "a code point sequence may not carry tags (RFC 7940 §5.5)")
                        );
                    }
                    if let Some(msg) = repertoire_limit(chars.len(), 1) {
                        return Err(self.err(e, msg));
                    }
                    chars.push(CharDef {
                        cps,
                        when: e.attribute("when").map(str::to_string),
                        not_when: e.attribute("not-when").map(str::to_string),
                        tags: tags(e),
                        comment: e.attribute("comment").map(str::to_string),
                        variants,
                        from_range: false,
                        line: self.line(e),
                    });
                }
                "range" => {
                    self.check_attrs(
                        e,
                        &["first-cp", "last-cp", "when", "not-when", "tag", "ref", "comment"],
                    )?;
                    let first = self.cps(e, "first-cp")?;
                    let last = self.cps(e, "last-cp")?;
                    if first.len() != 1 || last.len() != 1 {
                        return Err(self.err(e, "range bounds must be single code points"));
                    }
                    let (first, last) = (first[0], last[0]);
                    if first > last {
                        return Err(self.err(
                            e,
                            format!(
                                "reversed range {first:04X}..{last:04X}: first-cp is above last-cp"
                            ),
                        ));
                    }
                    if let Some(v) = self.elements(e)?.first() {
                        return Err(self.err(*v, "a <range> may not have variants"));
                    }
                    if let Some(msg) = repertoire_limit(chars.len(), range_len(first, last)) {
                        return Err(self.err(e, msg));
                    }
                    let line = self.line(e);
                    let t = tags(e);
                    for cp in first..=last {
                        if (0xD800..=0xDFFF).contains(&cp) {
                            continue;
                        }
                        chars.push(CharDef {
                            cps: vec![cp],
                            when: e.attribute("when").map(str::to_string),
                            not_when: e.attribute("not-when").map(str::to_string),
                            tags: t.clone(),
                            comment: e.attribute("comment").map(str::to_string),
                            variants: Vec::new(),
                            from_range: true,
                            line,
                        });
                    }
                }
                other => return Err(self.err(e, format!("unknown element <{other}> in <data>"))),
            }
        }
        Ok(())
    }

    fn rules(&self, node: Node, doc: &mut LgrDoc) -> R<()> {
        let elements = self.elements(node)?;
        // Every definition with its line (the first of a name), then those
        // seen so far.
        let mut all = Defined::default();
        for e in &elements {
            all.add(e, self.line(*e));
        }
        let mut seen = Defined::default();
        for e in elements.iter().copied() {
            self.check_backward_refs(e, &all, &seen)?;
            seen.add(&e, 0);
            match e.tag_name().name() {
                n if CLASS_ELEMENTS.contains(&n) => {
                    let name = e
                        .attribute("name")
                        .ok_or_else(|| self.err(e, "a top-level class needs a 'name'"))?;
                    let expr = self.class(e, true)?;
                    doc.classes.push(ClassDef { name: name.to_string(), expr, line: self.line(e) });
                }
                "rule" => {
                    self.check_attrs(e, &["name", "comment", "ref"])?;
                    let name = e
                        .attribute("name")
                        .ok_or_else(|| self.err(e, "a top-level rule needs a 'name'"))?;
                    let body = self.matchers(e)?;
                    doc.rules.push(RuleDef {
                        name: name.to_string(),
                        body,
                        comment: e.attribute("comment").map(str::to_string),
                        line: self.line(e),
                    });
                }
                "action" => {
                    self.check_attrs(
                        e,
                        &[
                            "disp",
                            "match",
                            "not-match",
                            "any-variant",
                            "all-variants",
                            "only-variants",
                            "ref",
                            "comment",
                        ],
                    )?;
                    let disp = e
                        .attribute("disp")
                        .ok_or_else(|| self.err(e, "missing 'disp' attribute"))?;
                    let m = e.attribute("match").map(str::to_string);
                    let nm = e.attribute("not-match").map(str::to_string);
                    if m.is_some() && nm.is_some() {
                        return Err(self.err(e, "'match' and 'not-match' are exclusive"));
                    }
                    let split = |s: &str| s.split_ascii_whitespace().map(str::to_string).collect();
                    let conds: Vec<VariantCond> = [
                        e.attribute("any-variant").map(|s| VariantCond::Any(split(s))),
                        e.attribute("all-variants").map(|s| VariantCond::All(split(s))),
                        e.attribute("only-variants").map(|s| VariantCond::Only(split(s))),
                    ]
                    .into_iter()
                    .flatten()
                    .collect();
                    if conds.len() > 1 {
                        return Err(self.err(
                            e,
                            "'any-variant', 'all-variants' and 'only-variants' are exclusive",
                        ));
                    }
                    doc.actions.push(ActionDef {
                        disp: disp.to_string(),
                        match_rule: m,
                        not_match_rule: nm,
                        variants: conds.into_iter().next(),
                        comment: e.attribute("comment").map(str::to_string),
                        line: self.line(e),
                    });
                }
                other => return Err(self.err(e, format!("unknown element <{other}> in <rules>"))),
            }
        }
        Ok(())
    }

    /// Refuses a reference (`by-ref`) in the top-level element `e` of
    /// `<rules>` to a rule or class defined after it: "It is an error to
    /// reference a rule or class for which the definition has not been
    /// seen" (RFC 7940 §6.3.4). `seen` holds the names defined before `e`.
    /// A name defined nowhere is left to the compiler's "reference to
    /// undefined" error; a context rule of `<data>` (`when`, `not-when`)
    /// and an action's `match` are no `by-ref` and may name a rule defined
    /// later.
    fn check_backward_refs(&self, e: Node, all: &Defined, seen: &Defined) -> R<()> {
        for r in e.descendants().filter(|d| d.is_element()) {
            let Some(name) = r.attribute("by-ref") else { continue };
            let (kind, earlier, anywhere) = match r.tag_name().name() {
                "rule" => ("rule", &seen.rules, &all.rules),
                "class" => ("class", &seen.classes, &all.classes),
                _ => continue,
            };
            if earlier.contains_key(name) {
                continue;
            }
            if let Some(line) = anywhere.get(name) {
                return Err(self.err(
                    r,
                    format!(
                        "{kind} '{name}' is referenced before its definition (line {line}); \
                         RFC 7940 section 6.3.4 allows references to earlier definitions only"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A class element or set operator. `top` is true for named definitions.
    fn class(&self, e: Node, top: bool) -> R<ClassExpr> {
        let name = e.tag_name().name();
        let mut allowed = vec!["comment", "ref"];
        if top {
            allowed.push("name");
        }
        if name == "class" {
            allowed.extend(["by-ref", "from-tag", "property"]);
            if !top {
                allowed.push("count");
            }
            self.check_attrs(e, &allowed)?;
            if top && e.attribute("by-ref").is_some() {
                return Err(self.err(e, "a named class may not be 'by-ref'"));
            }
            let text = self.text(e);
            let sources = [e.attribute("by-ref"), e.attribute("from-tag"), e.attribute("property")]
                .iter()
                .filter(|a| a.is_some())
                .count()
                + usize::from(!text.trim().is_empty());
            if sources != 1 {
                return Err(self.err(
                    e,
                    "a class needs exactly one of 'by-ref', 'from-tag', 'property' or code points",
                ));
            }
            if let Some(r) = e.attribute("by-ref") {
                return Ok(ClassExpr::Ref(r.to_string()));
            }
            if let Some(t) = e.attribute("from-tag") {
                return Ok(ClassExpr::Tag(t.to_string()));
            }
            if let Some(p) = e.attribute("property") {
                let (n, v) = p.split_once(':').ok_or_else(|| {
                    self.err(e, format!("bad property '{p}' (expected name:value)"))
                })?;
                return Ok(ClassExpr::Property(n.to_string(), v.to_string()));
            }
            let mut ranges = Vec::new();
            for item in text.split_ascii_whitespace() {
                let (a, b) = match item.split_once('-') {
                    Some((a, b)) => (self.cp(e, a)?, self.cp(e, b)?),
                    None => {
                        let c = self.cp(e, item)?;
                        (c, c)
                    }
                };
                if a > b {
                    return Err(self.err(
                        e,
                        format!("reversed range {item} in class: first code point above last"),
                    ));
                }
                ranges.push((a, b));
            }
            return Ok(ClassExpr::Ranges(ranges));
        }
        self.check_attrs(e, &allowed)?;
        let mut kids = Vec::new();
        for c in self.elements(e)? {
            match c.tag_name().name() {
                n if CLASS_ELEMENTS.contains(&n) => kids.push(self.class(c, false)?),
                other => {
                    return Err(self.err(c, format!("<{other}> may not appear in <{name}>")));
                }
            }
        }
        let need = |lo: usize, hi: Option<usize>| -> R<()> {
            if kids.len() < lo || hi.is_some_and(|h| kids.len() > h) {
                Err(self.err(e, format!("<{name}> has {} operand(s)", kids.len())))
            } else {
                Ok(())
            }
        };
        Ok(match name {
            "union" => {
                need(1, None)?;
                ClassExpr::Union(kids)
            }
            "intersection" => {
                need(2, Some(2))?;
                ClassExpr::Intersection(kids)
            }
            "difference" => {
                need(2, Some(2))?;
                ClassExpr::Difference(kids)
            }
            "symmetric-difference" => {
                need(2, Some(2))?;
                ClassExpr::SymmetricDifference(kids)
            }
            _ => {
                need(1, Some(1))?;
                ClassExpr::Complement(Box::new(kids.remove(0)))
            }
        })
    }

    fn count(&self, e: Node) -> R<Option<Count>> {
        let Some(s) = e.attribute("count") else { return Ok(None) };
        let num = |t: &str| -> R<u32> {
            if t.is_empty() || t.len() > 4 || !t.bytes().all(|b| b.is_ascii_digit()) {
                return Err(self.err(e, format!("bad count '{s}' (expected n, n+ or n:m)")));
            }
            Ok(t.parse().unwrap_or(0))
        };
        let c = if let Some(n) = s.strip_suffix('+') {
            Count { min: num(n)?, max: None }
        } else if let Some((a, b)) = s.split_once(':') {
            let (a, b) = (num(a)?, num(b)?);
            if a > b {
                return Err(self.err(e, format!("bad count '{s}': minimum above maximum")));
            }
            Count { min: a, max: Some(b) }
        } else {
            let n = num(s)?;
            Count { min: n, max: Some(n) }
        };
        Ok(Some(c))
    }

    fn matchers(&self, e: Node) -> R<Vec<Matcher>> {
        let mut out = Vec::new();
        for c in self.elements(e)? {
            out.push(self.matcher(c)?);
        }
        Ok(out)
    }

    fn matcher(&self, e: Node) -> R<Matcher> {
        let name = e.tag_name().name();
        Ok(match name {
            "start" | "end" | "anchor" => {
                self.check_attrs(e, &["comment"])?;
                if let Some(c) = self.elements(e)?.first() {
                    return Err(self.err(*c, format!("<{name}> must be empty")));
                }
                match name {
                    "start" => Matcher::Start,
                    "end" => Matcher::End,
                    _ => Matcher::Anchor,
                }
            }
            "any" => {
                self.check_attrs(e, &["count", "comment"])?;
                Matcher::Any(self.count(e)?)
            }
            "char" => {
                self.check_attrs(e, &["cp", "count", "comment", "ref"])?;
                Matcher::Char(self.cps(e, "cp")?, self.count(e)?)
            }
            n if CLASS_ELEMENTS.contains(&n) => {
                if e.attribute("name").is_some() {
                    return Err(self.err(e, "a class inside a rule may not have a 'name'"));
                }
                let count = if name == "class" { self.count(e)? } else { None };
                Matcher::Class(self.class(e, false)?, count)
            }
            "rule" => {
                self.check_attrs(e, &["by-ref", "count", "comment", "ref"])?;
                let count = self.count(e)?;
                if let Some(r) = e.attribute("by-ref") {
                    if let Some(c) = self.elements(e)?.first() {
                        return Err(self.err(*c, "a 'by-ref' rule must be empty"));
                    }
                    Matcher::RuleRef(r.to_string(), count)
                } else {
                    Matcher::Seq(self.matchers(e)?, count)
                }
            }
            "choice" => {
                self.check_attrs(e, &["count", "comment"])?;
                let kids = self.matchers(e)?;
                if kids.len() < 2 {
                    return Err(self.err(e, "a <choice> needs at least two alternatives"));
                }
                Matcher::Choice(kids, self.count(e)?)
            }
            "look-ahead" => {
                self.check_attrs(e, &["comment"])?;
                Matcher::LookAhead(self.matchers(e)?)
            }
            "look-behind" => {
                self.check_attrs(e, &["comment"])?;
                Matcher::LookBehind(self.matchers(e)?)
            }
            other => return Err(self.err(e, format!("unknown element <{other}> in a rule"))),
        })
    }
}

/// Names of rules and classes defined in `<rules>`, each with the line of
/// its first definition.
#[derive(Default)]
struct Defined<'a> {
    rules: std::collections::HashMap<&'a str, u32>,
    classes: std::collections::HashMap<&'a str, u32>,
}

impl<'a> Defined<'a> {
    /// Adds the top-level element `e` of `<rules>` when it defines a name.
    fn add(&mut self, e: &Node<'a, '_>, line: u32) {
        let Some(name) = e.attribute("name") else { return };
        let map = match e.tag_name().name() {
            "rule" => &mut self.rules,
            n if CLASS_ELEMENTS.contains(&n) => &mut self.classes,
            _ => return,
        };
        map.entry(name).or_insert(line);
    }
}

fn tags(e: Node) -> Vec<String> {
    e.attribute("tag")
        .map(|t| t.split_ascii_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_check_skips_comments_cdata_and_quoted_brackets() {
        let deep = "<a>".repeat(MAX_XML_DEPTH + 1);
        let text = format!(
            "<?xml version=\"1.0\"?><!-- {deep} --><r x=\"a>b\" y='<c>'><![CDATA[{deep}]]><e/><e/></r>"
        );
        assert_eq!(check_shape(&text), Ok(()));
        let at_limit = format!("{}{}", "<a>".repeat(MAX_XML_DEPTH), "</a>".repeat(MAX_XML_DEPTH));
        assert_eq!(check_shape(&at_limit), Ok(()));
        let over = format!("<a>{at_limit}</a>");
        let e = check_shape(&over).expect_err("too deep");
        assert_eq!((e.position.line, e.position.column), (1, 3 * MAX_XML_DEPTH as u32 + 1));
    }
}
