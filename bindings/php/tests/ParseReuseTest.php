<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Exception\WebhookParseException;
use IikoCloud\Library;
use IikoCloud\Tests\Support\TestCase;
use IikoCloud\Webhooks;

/**
 * Webhooks::parse reuses its out-parameters between calls (WebhookScratch):
 * each failure still reports its own error, and no good parse sees a bad one.
 */
final class ParseReuseTest extends TestCase
{
    protected function setUp(): void
    {
        // No emulator needed.
    }

    public function testEachFailureReportsItsOwnErrorBetweenGoodParses(): void
    {
        $good = (string) file_get_contents(dirname(__DIR__, 3) . '/benches/data/bodies/small_stop_list.json');
        $before = Library::liveHandles();
        // The library's own message names where the JSON broke: only the
        // error it wrote for this call has it.
        foreach (['[1,' => 'column 3', '[{"a":1}] x' => 'column 11', '[' => 'column 1'] as $bad => $where) {
            self::assertCount(1, Webhooks::parse($good));
            try {
                Webhooks::parse($bad);
                self::fail("parsed $bad");
            } catch (WebhookParseException $e) {
                self::assertSame('invalid_json', $e->getReason());
                self::assertStringContainsString($where, $e->getMessage(), $bad);
            }
        }
        self::assertSame('StopListUpdate', Webhooks::parse($good)[0]->typeName);
        self::assertSame($before, Library::liveHandles());
    }
}
