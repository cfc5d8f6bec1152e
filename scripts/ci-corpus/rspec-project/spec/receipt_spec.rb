require "spec_helper"

RSpec.describe "Receipt" do
  def render(cart)
    cart.items.map { |i| "#{i[:name]}: #{i[:price]}" }.join("\n")
  end

  it "renders one line per item" do
    cart = Cart.new.add("apple", 3).add("pear", 4)
    expect(render(cart)).to eq("apple: 3\npear: 5")
  end

  it "matches multiple expectations", :aggregate_failures do
    cart = Cart.new.add("apple", 3)
    expect(cart.items.size).to eq(2)
    expect(cart.total).to eq(4)
  end

  it "prints an error: line but passes" do
    warn "error: this is a log line from a passing example"
    expect(1).to eq(1)
  end
end
