require "spec_helper"

RSpec.describe Cart do
  let(:cart) { Cart.new }

  describe "#total" do
    it "sums prices" do
      cart.add("apple", 3).add("pear", 4)
      expect(cart.total).to eq(7)
    end

    context "with a discount" do
      it "subtracts the discount once" do
        cart.add("apple", 10)
        expect(cart.total(discount: 2)).to eq(8)
      end

      context "when the discount is larger than the total" do
        it "never goes below zero" do
          cart.add("apple", 1)
          expect(cart.total(discount: 5)).to be >= 0
        end
      end
    end
  end

  describe "#names" do
    it "lists names in order" do
      cart.add("b", 1).add("a", 1).add("c", 1)
      expect(cart.names).to eq(%w[a b c])
    end
  end

  describe "#to_h" do
    it "describes the cart" do
      cart.add("apple", 3)
      expect(cart.to_h).to eq(count: 1, total: 3, currency: "USD")
    end
  end

  describe "#add" do
    it "rejects a negative quantity with an error" do
      expect { cart.add("x", 1, -1) }.to raise_error(ArgumentError, /positive/)
    end

    it "raises on a nil price" do
      cart.add("x", nil)
      cart.total
    end

    it "handles FAIL in item names" do
      cart.add("FAIL", 1)
      expect(cart.names).to eq(["FAIL"])
    end
  end

  describe "pending work" do
    it "supports coupons" do
      pending "coupons are not implemented"
      expect(cart.total(discount: 1)).to eq(-1)
    end

    it "exports CSV", skip: "not in this release" do
      expect(true).to be(false)
    end

    xit "imports CSV" do
      expect(1).to eq(2)
    end

    it "rounds totals to cents" do
      pending "rounding is not implemented"
      cart.add("apple", 3)
      expect(cart.total).to eq(3)
    end

    it "accepts gift cards", pending: "gift cards are not supported" do
      expect(cart.items).to be_empty
    end
  end

  describe "as a collection" do
    subject { Cart.new }

    it_behaves_like "a collection"
  end
end
