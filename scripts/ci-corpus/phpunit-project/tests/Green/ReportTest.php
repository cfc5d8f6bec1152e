<?php
declare(strict_types=1);

namespace Acme\Widgets\Tests\Green;

use Acme\Widgets\Cart;
use PHPUnit\Framework\TestCase;

/** Passes, printing what looks like trouble. */
final class ReportTest extends TestCase
{
    public function testRendersAFailureSummary(): void
    {
        // A report renderer whose output imitates a test runner's.
        $report = "FAILURES!\nError: 1 item out of stock\n";
        echo $report;
        $this->assertStringContainsString('FAILURES!', $report);
    }

    public function testErrorHandlingLogsToStderr(): void
    {
        fwrite(STDERR, "error: retrying connection (attempt 1 of 3)\n");
        fwrite(STDERR, "PHP Warning:  legacy pricing table is deprecated in src/Cart.php on line 12\n");
        $this->assertSame(3, (new Cart())->add('apple', 3)->total());
    }

    public function testDeprecatedApiStillWorks(): void
    {
        trigger_error('Cart::legacyTotal() is deprecated, use total()', E_USER_DEPRECATED);
        $this->assertSame(0, (new Cart())->total());
    }

    /**
     * @dataProvider names
     */
    public function testHandlesFailedNames(string $name): void
    {
        $this->assertSame([$name], (new Cart())->add($name, 1)->names());
    }

    /** @return array<string, array{string}> */
    public static function names(): array
    {
        return ['FAILED' => ['FAILED'], 'error' => ['error:']];
    }

    public function testSkippedWithoutDatabase(): void
    {
        $this->markTestSkipped('needs a database');
    }
}
