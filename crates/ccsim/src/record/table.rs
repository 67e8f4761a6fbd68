//! Columnar tables: how results leave the simulator (one vector per column,
//! handed to Python as NumPy arrays, never as per-row objects).

#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    U32(Vec<u32>),
    Str(Vec<String>),
    /// Text from a small fixed set: each row is a code, an index into
    /// `dictionary` (so writing a row allocates nothing).
    Dict {
        dictionary: Vec<&'static str>,
        codes: Vec<u32>,
    },
    /// Text naming one of a few things of the run (its links): a code per
    /// row into `names`, so writing a row allocates nothing. Handed over as
    /// plain text, the same as `Str`.
    Names {
        names: Vec<String>,
        codes: Vec<u32>,
    },
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::U32(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::Dict { codes, .. } | Column::Names { codes, .. } => codes.len(),
        }
    }

    /// Row `row` of a text column (Str, Dict or Names).
    pub fn text(&self, row: usize) -> Option<&str> {
        match self {
            Column::Str(v) => Some(&v[row]),
            Column::Dict { dictionary, codes } => Some(dictionary[codes[row] as usize]),
            Column::Names { names, codes } => Some(&names[codes[row] as usize]),
            _ => None,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An ordered set of named, equally long columns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn new() -> Table {
        Table::default()
    }

    pub fn add(&mut self, name: &str, column: Column) {
        debug_assert!(
            self.columns.first().is_none_or(|(_, c)| c.len() == column.len()),
            "column {name} has another length"
        );
        self.columns.push((name.to_string(), column));
    }

    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    pub fn f64(&self, name: &str) -> &[f64] {
        match self.get(name) {
            Some(Column::F64(v)) => v,
            _ => panic!("no f64 column {name}"),
        }
    }

    pub fn u64(&self, name: &str) -> &[u64] {
        match self.get(name) {
            Some(Column::U64(v)) => v,
            _ => panic!("no u64 column {name}"),
        }
    }

    /// The rows of a text column (Str, Dict or Names).
    pub fn texts(&self, name: &str) -> Vec<&str> {
        let column = self.get(name).unwrap_or_else(|| panic!("no column {name}"));
        (0..column.len()).map(|row| column.text(row).unwrap_or_else(|| panic!("{name} is not text"))).collect()
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }
}
