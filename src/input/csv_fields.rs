//! The columns of CSV rows beyond the label, packed: one byte string per
//! row that has any in [`LabelSet`](super::LabelSet)'s `csv_data`, read
//! back through the borrowed view [`CsvFields`] (a row without any is not
//! stored).
//!
//! A row owned its fields as boxed strings before (88 bytes a row plus an
//! allocation per value: 1.4 GB for 10M rows); packed, a row of a date and
//! a short registrant id takes about 20 bytes.
//!
//! Layout: a flags byte ([`REGISTERED`], [`NANOS`], [`REGISTRANT`],
//! [`LGR`]); the seconds of `registered` (8 bytes, little endian) and its
//! nanoseconds (4, when not 0); the registrant and the LGR as a LEB128
//! length and UTF-8 text; then the extra columns to the end, each a LEB128
//! column number, a length and text.

use super::Timestamp;

const REGISTERED: u8 = 1;
const NANOS: u8 = 2;
const REGISTRANT: u8 = 4;
const LGR: u8 = 8;

/// The columns of a CSV row beyond the label (see [`Label::csv`]).
///
/// [`Label::csv`]: super::Label::csv
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CsvFields<'a> {
    /// `registered`: when the label was registered ("who was first").
    pub registered: Option<Timestamp>,
    /// `registrant`: an opaque registrant id.
    pub registrant: Option<&'a str>,
    /// `lgr`: the LGR file or language tag pinned for this row.
    pub lgr: Option<&'a str>,
    /// The packed extra columns.
    extra: &'a [u8],
}

impl<'a> CsvFields<'a> {
    /// The value of the unknown column numbered `column` (an index into
    /// [`LabelSet::csv_columns`]), if the row has one.
    ///
    /// [`LabelSet::csv_columns`]: super::LabelSet::csv_columns
    pub fn extra(&self, column: u32) -> Option<&'a str> {
        let mut rest = self.extra;
        while !rest.is_empty() {
            let c = read_len(&mut rest)?;
            let value = read_str(&mut rest)?;
            if c == column as usize {
                return Some(value);
            }
        }
        None
    }

    /// Reads the row packed by [`CsvRowWriter`] at the start of `data`;
    /// `None` if there is none.
    pub(crate) fn unpack(mut data: &'a [u8]) -> Option<CsvFields<'a>> {
        let len = read_len(&mut data)?;
        let mut row = take(&mut data, len)?;
        let (&flags, rest) = row.split_first()?;
        row = rest;
        let mut fields = CsvFields::default();
        if flags & REGISTERED != 0 {
            let secs = i64::from_le_bytes(take(&mut row, 8)?.try_into().ok()?);
            let nanos = if flags & NANOS != 0 {
                u32::from_le_bytes(take(&mut row, 4)?.try_into().ok()?)
            } else {
                0
            };
            fields.registered = Some(Timestamp::from_parts(secs, nanos));
        }
        if flags & REGISTRANT != 0 {
            fields.registrant = Some(read_str(&mut row)?);
        }
        if flags & LGR != 0 {
            fields.lgr = Some(read_str(&mut row)?);
        }
        fields.extra = row;
        Some(fields)
    }
}

/// Packs one row (its columns in any order) into a reused buffer.
#[derive(Default)]
pub(crate) struct CsvRowWriter {
    flags: u8,
    registered: Option<Timestamp>,
    registrant: Vec<u8>,
    lgr: Vec<u8>,
    extra: Vec<u8>,
}

impl CsvRowWriter {
    /// Starts a new row.
    pub(crate) fn clear(&mut self) {
        self.flags = 0;
        self.registered = None;
        self.registrant.clear();
        self.lgr.clear();
        self.extra.clear();
    }

    pub(crate) fn registered(&mut self, t: Timestamp) {
        self.flags |= REGISTERED;
        self.registered = Some(t);
    }

    /// Sets the registrant (UTF-8 text, as each value here: it is read
    /// back as `str`); an empty value takes back an earlier one.
    pub(crate) fn registrant(&mut self, value: &[u8]) {
        set_str(&mut self.flags, REGISTRANT, &mut self.registrant, value);
    }

    /// Sets the LGR; an empty value takes back an earlier one.
    pub(crate) fn lgr(&mut self, value: &[u8]) {
        set_str(&mut self.flags, LGR, &mut self.lgr, value);
    }

    pub(crate) fn extra(&mut self, column: u32, value: &[u8]) {
        write_len(&mut self.extra, column as usize);
        write_str(&mut self.extra, value);
    }

    /// Appends the packed row to `out`, after its length; nothing for a
    /// row without columns beyond the label.
    pub(crate) fn pack_into(&self, out: &mut Vec<u8>) {
        if self.flags == 0 && self.extra.is_empty() {
            return;
        }
        let len = 1
            + self.registered.map_or(0, |t| if t.nanos() != 0 { 12 } else { 8 })
            + self.registrant.len()
            + self.lgr.len()
            + self.extra.len();
        write_len(out, len);
        let nanos = self.registered.map_or(0, Timestamp::nanos);
        out.push(self.flags | if nanos != 0 { NANOS } else { 0 });
        if let Some(t) = self.registered {
            out.extend_from_slice(&t.unix_seconds().to_le_bytes());
            if nanos != 0 {
                out.extend_from_slice(&nanos.to_le_bytes());
            }
        }
        out.extend_from_slice(&self.registrant);
        out.extend_from_slice(&self.lgr);
        out.extend_from_slice(&self.extra);
    }
}

fn set_str(flags: &mut u8, flag: u8, buf: &mut Vec<u8>, value: &[u8]) {
    buf.clear();
    if value.is_empty() {
        *flags &= !flag;
    } else {
        *flags |= flag;
        write_str(buf, value);
    }
}

fn take<'a>(b: &mut &'a [u8], n: usize) -> Option<&'a [u8]> {
    let (head, rest) = b.split_at_checked(n)?;
    *b = rest;
    Some(head)
}

fn write_len(out: &mut Vec<u8>, mut n: usize) {
    while n >= 0x80 {
        out.push(n as u8 | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn read_len(b: &mut &[u8]) -> Option<usize> {
    let mut n = 0usize;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = b.split_first()?;
        *b = rest;
        n |= usize::from(byte & 0x7f) << shift;
        if byte < 0x80 {
            return Some(n);
        }
    }
    None
}

fn write_str(out: &mut Vec<u8>, s: &[u8]) {
    write_len(out, s.len());
    out.extend_from_slice(s);
}

fn read_str<'a>(b: &mut &'a [u8]) -> Option<&'a str> {
    let n = read_len(b)?;
    std::str::from_utf8(take(b, n)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_read_back_as_written() {
        let mut w = CsvRowWriter::default();
        let mut data = Vec::new();
        w.registrant(b"reg-1");
        w.registered(Timestamp::parse_rfc3339("2019-03-01T12:00:00.5Z").unwrap());
        w.extra(3, "x".repeat(300).as_bytes());
        w.extra(0, b"zero");
        w.pack_into(&mut data);
        let at = data.len();
        w.clear();
        w.lgr(b"und-Latn");
        w.registrant(b"reg-2");
        w.registrant(b"");
        w.pack_into(&mut data);
        let a = CsvFields::unpack(&data).unwrap();
        assert_eq!(a.registered.map(Timestamp::nanos), Some(500_000_000));
        assert_eq!((a.registrant, a.lgr), (Some("reg-1"), None));
        assert_eq!(a.extra(3).map(str::len), Some(300));
        assert_eq!((a.extra(0), a.extra(1)), (Some("zero"), None));
        let b = CsvFields::unpack(&data[at..]).unwrap();
        assert_eq!((b.registered, b.registrant, b.lgr), (None, None, Some("und-Latn")));
    }
}
