//! A result table handed to Python as an Arrow record batch, through the
//! Arrow PyCapsule interface (`__arrow_c_array__`, the C data interface in
//! capsules: https://arrow.apache.org/docs/format/CDataInterface/PyCapsuleInterface.html).
//! `pyarrow.record_batch(t)` takes it without copying: numeric columns keep
//! the simulator's vectors as their buffers; text columns are laid out once
//! as Arrow strings (no Python object per cell); dictionary columns become
//! dictionary arrays (UInt32 codes into Utf8 names). Polars, DuckDB and others
//! read the same capsules.

use std::ffi::CString;
use std::sync::Arc;

use arrow_array::ffi::{to_ffi, FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::types::UInt32Type;
use arrow_array::{
    ArrayRef, DictionaryArray, Float64Array, RecordBatch, RecordBatchOptions, StringArray, StructArray, UInt32Array,
    UInt64Array,
};
use arrow_schema::{ArrowError, DataType, Field, Schema};
use ccsim::record::table::{Column, Table};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyTuple};

/// Every column nullable, as pyarrow makes columns from arrays, so the
/// Parquet files written from these tables are those of arrays built in Python.
const NULLABLE: bool = true;

fn arrow_error(e: ArrowError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// One result table as an Arrow record batch (`len()`: its rows).
#[pyclass(frozen, module = "ccbench._ccsim")]
pub struct ArrowTable {
    batch: RecordBatch,
}

impl ArrowTable {
    pub fn from_table(table: Table) -> PyResult<ArrowTable> {
        Ok(ArrowTable { batch: record_batch(table).map_err(arrow_error)? })
    }
}

/// The table's columns moved into Arrow arrays (numeric vectors become the
/// arrays' buffers as they are).
fn record_batch(table: Table) -> Result<RecordBatch, ArrowError> {
    let rows = table.rows();
    let mut fields = Vec::with_capacity(table.columns.len());
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(table.columns.len());
    for (name, column) in table.columns {
        let (data_type, array): (DataType, ArrayRef) = match column {
            Column::F64(v) => (DataType::Float64, Arc::new(Float64Array::from(v))),
            Column::U64(v) => (DataType::UInt64, Arc::new(UInt64Array::from(v))),
            Column::U32(v) => (DataType::UInt32, Arc::new(UInt32Array::from(v))),
            Column::Str(v) => (DataType::Utf8, Arc::new(StringArray::from(v))),
            Column::Names { names, codes } => {
                (DataType::Utf8, Arc::new(StringArray::from_iter_values(codes.iter().map(|&c| &names[c as usize]))))
            }
            Column::Dict { dictionary, codes } => {
                let array = DictionaryArray::<UInt32Type>::try_new(
                    UInt32Array::from(codes),
                    Arc::new(StringArray::from(dictionary)),
                )?;
                (DataType::Dictionary(Box::new(DataType::UInt32), Box::new(DataType::Utf8)), Arc::new(array))
            }
        };
        fields.push(Field::new(name, data_type, NULLABLE));
        arrays.push(array);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options)
}

#[pymethods]
impl ArrowTable {
    /// The schema and the data as the PyCapsule interface's pair of capsules
    /// ("arrow_schema", "arrow_array"). A requested schema is not applied:
    /// the interface lets a producer hand its own and the consumer cast.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        let data = StructArray::from(self.batch.clone()).into();
        let (array, schema): (FFI_ArrowArray, FFI_ArrowSchema) = to_ffi(&data).map_err(arrow_error)?;
        let schema = PyCapsule::new(py, schema, Some(CString::from(c"arrow_schema")))?;
        let array = PyCapsule::new(py, array, Some(CString::from(c"arrow_array")))?;
        PyTuple::new(py, [schema.into_any(), array.into_any()])
    }

    /// The schema alone, as an "arrow_schema" capsule.
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let schema = FFI_ArrowSchema::try_from(self.batch.schema().as_ref()).map_err(arrow_error)?;
        PyCapsule::new(py, schema, Some(CString::from(c"arrow_schema")))
    }

    fn __len__(&self) -> usize {
        self.batch.num_rows()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;

    #[test]
    fn columns_keep_their_names_types_and_values() {
        let mut t = Table::new();
        t.add("t", Column::F64(vec![0.5, 1.5]));
        t.add("flow", Column::U32(vec![0, 1]));
        t.add("bytes", Column::U64(vec![10, u64::MAX]));
        t.add("cc", Column::Str(vec!["cubic".into(), "reno".into()]));
        let b = record_batch(t).unwrap();
        let names: Vec<_> = b.schema().fields().iter().map(|f| (f.name().clone(), f.data_type().clone())).collect();
        assert_eq!(
            names,
            [
                ("t".into(), DataType::Float64),
                ("flow".into(), DataType::UInt32),
                ("bytes".into(), DataType::UInt64),
                ("cc".into(), DataType::Utf8)
            ]
        );
        assert_eq!(b.column(2).as_any().downcast_ref::<UInt64Array>().unwrap().value(1), u64::MAX);
        assert_eq!(b.column(3).as_any().downcast_ref::<StringArray>().unwrap().value(1), "reno");
        assert!(b.schema().fields().iter().all(|f| f.is_nullable()));
    }

    #[test]
    fn a_dictionary_column_is_a_dictionary_array_of_its_names() {
        let mut t = Table::new();
        t.add("var", Column::Dict { dictionary: vec!["mode", "alpha"], codes: vec![1, 0, 1] });
        let b = record_batch(t).unwrap();
        assert_eq!(
            b.schema().field(0).data_type(),
            &DataType::Dictionary(Box::new(DataType::UInt32), Box::new(DataType::Utf8))
        );
        let var = b.column(0).as_any().downcast_ref::<DictionaryArray<UInt32Type>>().unwrap();
        let names = var.values().as_any().downcast_ref::<StringArray>().unwrap();
        let texts: Vec<&str> = var.keys().values().iter().map(|&k| names.value(k as usize)).collect();
        assert_eq!(texts, ["alpha", "mode", "alpha"]);
    }

    #[test]
    fn a_names_column_is_plain_text() {
        let mut t = Table::new();
        t.add("link", Column::Names { names: vec!["downlink".into(), "uplink".into()], codes: vec![1, 0, 1] });
        let b = record_batch(t).unwrap();
        assert_eq!(b.schema().field(0).data_type(), &DataType::Utf8);
        let link = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!(link.iter().collect::<Vec<_>>(), [Some("uplink"), Some("downlink"), Some("uplink")]);
    }

    #[test]
    fn a_numeric_column_is_the_simulator_vector_itself() {
        let v = vec![1.0, 2.0, 3.0];
        let address = v.as_ptr();
        let mut t = Table::new();
        t.add("x", Column::F64(v));
        let b = record_batch(t).unwrap();
        let x = b.column(0).as_any().downcast_ref::<Float64Array>().unwrap();
        assert_eq!(x.values().as_ptr(), address);
        assert_eq!(x.null_count(), 0);
    }

    #[test]
    fn an_empty_table_has_no_rows_and_a_table_without_columns_too() {
        let mut t = Table::new();
        t.add("cc", Column::Str(vec![]));
        assert_eq!(record_batch(t).unwrap().num_rows(), 0);
        assert_eq!(record_batch(Table::new()).unwrap().num_columns(), 0);
    }
}
