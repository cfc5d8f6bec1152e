<?php
declare(strict_types=1);

namespace Acme\Widgets\Tests\Unit;

use Acme\Widgets\Cart;
use PHPUnit\Framework\TestCase;

final class ReceiptTest extends TestCase
{
    private function render(Cart $cart): string
    {
        $lines = [];
        foreach ($cart->names() as $name) {
            $lines[] = sprintf('%s: %d', $name, $cart->price($name));
        }
        return implode("\n", $lines);
    }

    public function testRendersOneLinePerItem(): void
    {
        $cart = (new Cart())->add('apple', 3)->add('pear', 4);
        $this->assertSame("apple: 3\npear: 4", $this->render($cart));
    }

    public function testHelperAssertion(): void
    {
        $this->assertReceiptHas((new Cart())->add('fig', 2), 'fig: 3');
    }

    private function assertReceiptHas(Cart $cart, string $line): void
    {
        $this->assertStringContainsString($line, $this->render($cart));
    }

    public function testDeprecatedWarning(): void
    {
        $this->assertTrue(true);
        trigger_error('the old renderer is deprecated', E_USER_WARNING);
    }

    public function testAddsAPhpunitWarning(): void
    {
        $this->addWarning('this test uses a deprecated fixture');
        $this->assertTrue(true);
    }

    public function testTypeErrorIsAnError(): void
    {
        $this->assertSame(1, (new Cart())->add('x', 1)->total());
        strlen();
    }
}
