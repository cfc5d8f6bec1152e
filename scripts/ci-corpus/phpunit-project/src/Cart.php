<?php
declare(strict_types=1);

namespace Acme\Widgets;

final class Cart
{
    /** @var array<string, array{price: int, qty: int}> */
    private array $items = [];

    public function add(string $name, int $price, int $qty = 1): self
    {
        if ($qty <= 0) {
            throw new \InvalidArgumentException("qty must be positive, got $qty");
        }
        $this->items[$name] = ['price' => $price, 'qty' => $qty];
        return $this;
    }

    public function total(int $discount = 0): int
    {
        $sum = 0;
        foreach ($this->items as $item) {
            $sum += $item['price'] * $item['qty'];
        }
        return $sum - 2 * $discount;
    }

    /** @return list<string> */
    public function names(): array
    {
        $names = array_keys($this->items);
        rsort($names);
        return $names;
    }

    public function price(string $name): int
    {
        return $this->items[$name]['price'];
    }
}
