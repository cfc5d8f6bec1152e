<?php
declare(strict_types=1);

namespace Acme\Widgets\Tests\Unit;

use Acme\Widgets\Cart;
use PHPUnit\Framework\TestCase;

final class CartTest extends TestCase
{
    public function testSumsPrices(): void
    {
        $cart = (new Cart())->add('apple', 3)->add('pear', 4);
        $this->assertSame(7, $cart->total());
    }

    public function testAppliesDiscountOnce(): void
    {
        $cart = (new Cart())->add('apple', 10);
        $this->assertSame(8, $cart->total(2), 'discount applied twice');
    }

    public function testNamesAreSorted(): void
    {
        $cart = (new Cart())->add('b', 1)->add('a', 1)->add('c', 1);
        $this->assertEquals(['a', 'b', 'c'], $cart->names());
    }

    public function testRejectsZeroQuantityWithError(): void
    {
        $this->expectException(\InvalidArgumentException::class);
        (new Cart())->add('x', 1, 0);
    }

    public function testUnknownItemThrows(): void
    {
        $cart = new Cart();
        $this->assertSame(0, $cart->price('ghost'));
    }

    public function testExceptionFromLibrary(): void
    {
        (new Cart())->add('x', 1, -5);
    }

    public function testRiskyHasNoAssertions(): void
    {
        $cart = new Cart();
    }

    public function testIncompleteFeature(): void
    {
        $this->markTestIncomplete('coupons are not implemented');
    }

    public function testSkippedOnCi(): void
    {
        $this->markTestSkipped('needs a database');
    }

    public function testWarningFAILMessageIsNotAFailure(): void
    {
        fwrite(STDERR, "error: this line is printed by a passing test\n");
        $this->assertTrue(true);
    }

    /**
     * @dataProvider totals
     */
    public function testTotals(int $price, int $qty, int $expected): void
    {
        $cart = (new Cart())->add('item', $price, $qty);
        $this->assertSame($expected, $cart->total());
    }

    /** @return array<int|string, array{int, int, int}> */
    public static function totals(): array
    {
        return [
            [1, 1, 1],
            [2, 3, 5],
            'three of four' => [4, 3, 12],
            'bulk order' => [5, 10, 55],
        ];
    }
}
