RSpec.shared_examples "a collection" do
  it "starts empty" do
    expect(subject).to be_empty
  end

  it "reports its size" do
    expect(subject.items.size).to eq(1)
  end
end
