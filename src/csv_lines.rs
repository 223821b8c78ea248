//! Line numbers of the records the `csv` crate reads, counted from their
//! byte offsets: the crate's own count is one short after each CRLF line
//! end, and names the blank line before a record that follows one.
//! Hand-written because the crate gives no other count.

/// The lines of a text, found from the byte offsets of its records, read
/// in increasing order (each newline is counted once).
pub(crate) struct CsvLines<'t> {
    text: &'t [u8],
    at: usize,
    line: u64,
}

impl<'t> CsvLines<'t> {
    /// Lines of `text`, which starts on line 1.
    pub(crate) fn new(text: &'t [u8]) -> Self {
        CsvLines { text, at: 0, line: 1 }
    }

    /// The line of the record that starts at `offset`
    /// (`csv::Position::byte`): after the blank lines the reader skipped.
    pub(crate) fn at(&mut self, offset: u64) -> u64 {
        let mut to =
            usize::try_from(offset).unwrap_or(usize::MAX).min(self.text.len()).max(self.at);
        while self.text.get(to).is_some_and(|b| matches!(b, b'\r' | b'\n')) {
            to += 1;
        }
        self.line += memchr::memchr_iter(b'\n', &self.text[self.at..to]).count() as u64;
        self.at = to;
        self.line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records after CRLF ends and blank lines are on their own lines.
    #[test]
    fn lines_of_records() {
        let text = "h,n\r\na,1\r\n\r\n\nb,2\n\"c\nd\",3\ne,4\n";
        let mut r = csv::ReaderBuilder::new().from_reader(text.as_bytes());
        let mut lines = CsvLines::new(text.as_bytes());
        let got: Vec<(String, u64)> = r
            .records()
            .map(|rec| {
                let rec = rec.unwrap();
                (rec[0].to_string(), lines.at(rec.position().unwrap().byte()))
            })
            .collect();
        let want = [("a", 2), ("b", 5), ("c\nd", 6), ("e", 8)];
        assert_eq!(got, want.map(|(a, b)| (a.to_string(), b)));
    }
}
