fn stock_level(name: &str) -> u32 {
    if name.is_empty() {
        return "none";
    }
    name.len() as u32
}

fn main() {
    println!("{}", stock_level("apples"));
    println!("{}", restock_threshold);
}
