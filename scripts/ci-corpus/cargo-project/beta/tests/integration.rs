#[test]
fn end_to_end() {
    let values = [1, 2, 3];
    assert!(values.iter().sum::<i32>() > 10, "sum too small: {:?}", values);
}

#[test]
fn end_to_end_ok() {
    assert_eq!(beta::halve(10), 5);
}
