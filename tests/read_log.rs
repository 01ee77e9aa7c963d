//! `donate::ReadLog`: a log notes the reads of buffers made before it
//! opened, once each, with their write counts; `ReadSet::written` sees a
//! later write or a freed buffer; `unlogged` reads are not noted; an inner
//! log passes its reads to the enclosing one.

use donate::{storages_made, unlogged, ReadLog, Tensor};

#[test]
fn notes_earlier_buffers_only_and_sees_their_writes() {
    let mut before = Tensor::<f32>::from_vec(vec![1.0, 2.0], &[2]).unwrap();
    let quiet = Tensor::<f32>::from_vec(vec![4.0], &[1]).unwrap();
    let log = ReadLog::open(storages_made());
    let after = Tensor::<f32>::from_vec(vec![3.0], &[1]).unwrap();
    drop(after.export().unwrap()); // made while the log is open: not noted
    drop(before.export().unwrap());
    drop(before.export().unwrap()); // noted once
    unlogged(|| drop(quiet.export().unwrap()));
    let read = log.close();
    assert_eq!(read.len(), 1);
    assert!(!read.written());
    before.data_mut().unwrap()[1] = 0.0;
    assert!(read.written());
}

#[test]
fn an_inner_log_passes_its_reads_out_and_a_freed_buffer_counts_as_written() {
    let w = Tensor::<f32>::from_vec(vec![1.0], &[1]).unwrap();
    let outer = ReadLog::open(storages_made());
    let inner = ReadLog::open(storages_made());
    drop(w.export().unwrap());
    let inner = inner.close();
    let unclosed = ReadLog::open(storages_made());
    drop(unclosed); // dropped unclosed: closed, outer is the innermost again
    let outer = outer.close();
    assert_eq!((inner.len(), outer.len()), (1, 1));
    assert!(!outer.written());
    drop(w);
    assert!(outer.written() && inner.written());
}
