<?php

declare(strict_types=1);

namespace IikoCloud\Tests;

use IikoCloud\Exception\BadRequestException;
use IikoCloud\Tests\Support\Emulator;
use IikoCloud\Tests\Support\TestCase;

/**
 * The five operations of the newer edition that answer a JSON list (OLAP
 * columns and presets, the organization tree, inventories by period, account
 * types), through the generated groups: PHP lists of items with the
 * document's field names.
 */
final class ListAnswersTest extends TestCase
{
    private const STORE = '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f';

    /**
     * @param mixed $list
     * @param list<string> $fields the document's names, all present in every item
     */
    private static function assertListOf($list, array $fields): void
    {
        self::assertIsArray($list);
        self::assertNotEmpty($list);
        self::assertTrue(array_is_list($list), 'a JSON list, not an object by name');
        foreach ($list as $item) {
            self::assertIsArray($item);
            foreach ($fields as $field) {
                self::assertArrayHasKey($field, $item, json_encode($item) ?: '');
            }
            // No field of another name.
            self::assertSame([], array_diff(array_keys($item), $fields), json_encode($item) ?: '');
        }
    }

    public function testOlapColumnsAndPresets(): void
    {
        $olap = Emulator::client()->api()->reporting()->olap();
        $columns = $olap->columns()->get(['reportType' => 'SALES']);
        self::assertListOf($columns, ['name', 'displayName', 'type', 'tags', 'canAggregate', 'canFilter', 'canGroup']);
        self::assertCount(7, $columns);
        $byName = array_column($columns, null, 'name');
        self::assertSame('Dish sum', $byName['DishSumInt']['displayName']);
        self::assertTrue($byName['DishSumInt']['canAggregate']);
        self::assertFalse($byName['DishSumInt']['canGroup']);
        self::assertSame(['Date and time'], $byName['OpenDate.Typed']['tags']);
        try {
            $olap->columns()->get(['reportType' => 'WEEKLY']);
            self::fail('another report type is refused');
        } catch (BadRequestException $e) {
            self::assertStringContainsString('SALES', $e->getMessage());
        }

        $presets = $olap->presets()->list();
        self::assertListOf($presets, ['presetId', 'name']);
        $report = $olap->presets()->get([
            'presetId' => $presets[0]['presetId'],
            'dateFrom' => '2000-01-01',
            'dateTo' => '2100-01-01',
        ]);
        self::assertArrayHasKey('data', $report);
        self::assertCount(1, $report['summary']);
    }

    public function testTheOrganizationTree(): void
    {
        $tree = Emulator::client()->api()->inventory()->organizations()->tree();
        self::assertListOf($tree, ['jurPersonId', 'name', 'code', 'type', 'children']);
        self::assertSame('Emulator Restaurants LLC', $tree[0]['name']);
        self::assertSame('JUR_PERSON', $tree[0]['type']);
        $children = $tree[0]['children'];
        self::assertListOf($children, [
            'organizationId', 'iikoUid', 'parentId', 'name', 'code', 'type',
            'isCloud', 'version', 'crmId', 'rating', 'children',
        ]);
        self::assertSame([Emulator::ORG, Emulator::SECOND_ORG], array_column($children, 'organizationId'));
        self::assertSame('EMU-PIZZA', $children[0]['code']);
        self::assertSame([], $children[0]['children'], 'a leaf');
        self::assertSame(Emulator::DISABLED_ORG, $tree[1]['children'][0]['organizationId']);
    }

    public function testInventoriesByPeriodAndAccountTypes(): void
    {
        $api = Emulator::client()->api();
        $docs = $api->inventory()->incomingInventory();
        $draft = $docs->create([
            'organizationId' => Emulator::ORG,
            'store' => self::STORE,
            'date' => '2026-03-01T09:00:00',
            'items' => [],
            'itemsFirstStep' => [],
        ]);
        $docs->cancel(['organizationId' => Emulator::ORG, 'documentId' => $draft['documentId']]);
        $listed = $docs->list(['organizationId' => Emulator::ORG, 'from' => '2026-03-01', 'to' => '2026-03-01']);
        self::assertTrue(array_is_list($listed));
        self::assertCount(1, $listed);
        $item = $listed[0];
        self::assertSame($draft['documentId'], $item['documentId']);
        self::assertSame(self::STORE, $item['storeFrom']);
        self::assertTrue($item['deleted']);
        self::assertFalse($item['processed']);
        self::assertArrayNotHasKey('status', $item, 'the list item has flags, not the status');
        self::assertSame([], $docs->list(['organizationId' => Emulator::SECOND_ORG, 'from' => '2026-03-01', 'to' => '2026-03-31']));

        $types = $api->finance()->accountType()->list();
        self::assertListOf($types, ['code']);
        self::assertContains('CASH', array_column($types, 'code'));
    }
}
