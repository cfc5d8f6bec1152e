<?php

use PHPUnit\Framework\TestCase;

require_once __DIR__ . '/../src/Calc.php';

final class CalcTest extends TestCase
{
    public function testAdd(): void
    {
        $this->assertSame(4, (new Calc())->add(2, 3));
    }

    public function testAddPasses(): void
    {
        $this->assertSame(5, (new Calc())->add(2, 3));
    }

    public function testDivideByZero(): void
    {
        $this->assertSame(0, (new Calc())->divide(1, 0));
    }

    /**
     * @dataProvider pairs
     */
    public function testPairs(int $a, int $b, int $sum): void
    {
        $this->assertSame($sum, (new Calc())->add($a, $b));
    }

    public function pairs(): array
    {
        return [[1, 1, 2], [2, 2, 5]];
    }

    public function testSkipped(): void
    {
        $this->markTestSkipped('needs a database');
    }
}
