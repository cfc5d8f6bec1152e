# A shopping cart with deliberate bugs.
class Cart
  attr_reader :items

  def initialize
    @items = []
  end

  def add(name, price, qty = 1)
    raise ArgumentError, "qty must be positive" if qty.negative?
    @items << { name: name, price: price, qty: qty }
    self
  end

  def total(discount: 0)
    sum = @items.sum { |i| i[:price] * i[:qty] }
    sum - discount * 2
  end

  def names
    unused = @items.size
    @items.map { |i| i[:name] }.sort.reverse
  end

  def to_h
    { count: @items.size, total: total, currency: "usd" }
  end

  def empty?
    @items.size.zero?
  end
end
