use ledger::balance;

#[test]
fn report_totals() {
    let total = balance(&[5, 5]);
    assert!(total > 100, "total {total} is too small for a report");
}

#[test]
fn report_header() {
    assert_eq!("Ledger", "ledger".to_uppercase());
}
