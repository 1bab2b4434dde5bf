<?php

declare(strict_types=1);

namespace IikoCloud\Tests\Support;

use PHPStan\PhpDocParser\Ast\ConstExpr\ConstExprIntegerNode;
use PHPStan\PhpDocParser\Ast\ConstExpr\ConstExprStringNode;
use PHPStan\PhpDocParser\Ast\PhpDoc\ParamTagValueNode;
use PHPStan\PhpDocParser\Ast\PhpDoc\PhpDocNode;
use PHPStan\PhpDocParser\Ast\PhpDoc\ReturnTagValueNode;
use PHPStan\PhpDocParser\Ast\PhpDoc\TypeAliasTagValueNode;
use PHPStan\PhpDocParser\Ast\Type\ArrayShapeNode;
use PHPStan\PhpDocParser\Ast\Type\ConditionalTypeForParameterNode;
use PHPStan\PhpDocParser\Ast\Type\ConstTypeNode;
use PHPStan\PhpDocParser\Ast\Type\GenericTypeNode;
use PHPStan\PhpDocParser\Ast\Type\IdentifierTypeNode;
use PHPStan\PhpDocParser\Ast\Type\NullableTypeNode;
use PHPStan\PhpDocParser\Ast\Type\TypeNode;
use PHPStan\PhpDocParser\Ast\Type\UnionTypeNode;
use PHPStan\PhpDocParser\Lexer\Lexer;
use PHPStan\PhpDocParser\Parser\ConstExprParser;
use PHPStan\PhpDocParser\Parser\PhpDocParser;
use PHPStan\PhpDocParser\Parser\TokenIterator;
use PHPStan\PhpDocParser\Parser\TypeParser;

/**
 * Checks values against the generated PHPDoc types at run time: a request
 * against its method's `@param`, an answer against its `@return`, following
 * the aliases of IikoCloud\Api\Shapes. PHPStan cannot run here; this says at
 * least that what the binding really sends and returns fits what the types
 * promise (missing keys, nulls where none may be, amounts that are not
 * numeric strings, keys a sealed shape does not have, a wrong variant).
 * A shape that ends in `...` takes keys it does not list, as PHPStan and
 * Psalm read it; only a sealed one refuses them.
 *
 * Needs PHPStan's PHPDoc parser (php-phpstan-phpdoc-parser, installed by
 * scripts/php-test.sh).
 */
final class Shapes
{
    public const PARSER = '/usr/share/php/PHPStan/PhpDocParser/autoload.php';

    /** @var array<string, TypeNode>|null */
    private static ?array $aliases = null;

    public static function available(): bool
    {
        return is_file(self::PARSER);
    }

    /**
     * Problems of an answer against the method's `@return` (empty: it fits).
     *
     * @param array<string, mixed> $arguments the call's other arguments by name (e.g. `['wait' => true]`)
     * @return list<string>
     */
    public static function answerProblems(object $group, string $method, mixed $answer, array $arguments = []): array
    {
        foreach (self::doc($group, $method)->children as $child) {
            if (isset($child->value) && $child->value instanceof ReturnTagValueNode) {
                $problems = [];
                self::check(self::resolveConditional($child->value->type, $arguments), $answer, '$answer', $problems);
                return $problems;
            }
        }
        return ["$method has no @return"];
    }

    /**
     * Problems of a request against the method's `@param $request`.
     *
     * @return list<string>
     */
    public static function requestProblems(object $group, string $method, mixed $request): array
    {
        foreach (self::doc($group, $method)->children as $child) {
            if (isset($child->value) && $child->value instanceof ParamTagValueNode && $child->value->parameterName === '$request') {
                $problems = [];
                self::check($child->value->type, $request, '$request', $problems);
                return $problems;
            }
        }
        return ["$method has no @param \$request"];
    }

    /**
     * Problems of a value against an alias of IikoCloud\Api\Shapes.
     *
     * @return list<string>
     */
    public static function problems(string $alias, mixed $value): array
    {
        $problems = [];
        self::check(new IdentifierTypeNode($alias), $value, '$value', $problems);
        return $problems;
    }

    /**
     * Problems of a value against a PHPDoc type written out, e.g.
     * `array{id: string, ...}` (it may name the aliases of IikoCloud\Api\Shapes).
     *
     * @return list<string>
     */
    public static function typeProblems(string $type, mixed $value): array
    {
        require_once self::PARSER;
        $tokens = new TokenIterator((new Lexer())->tokenize($type));
        $node = (new TypeParser(new ConstExprParser()))->parse($tokens);
        $tokens->consumeTokenType(Lexer::TOKEN_END);
        $problems = [];
        self::check($node, $value, '$value', $problems);
        return $problems;
    }

    private static function parser(): PhpDocParser
    {
        require_once self::PARSER;
        $constants = new ConstExprParser();
        return new PhpDocParser(new TypeParser($constants), $constants);
    }

    private static function parse(string $doc): PhpDocNode
    {
        return self::parser()->parse(new TokenIterator((new Lexer())->tokenize($doc)));
    }

    private static function doc(object $group, string $method): PhpDocNode
    {
        return self::parse((string) (new \ReflectionMethod($group, $method))->getDocComment());
    }

    /** @return array<string, TypeNode> */
    private static function aliases(): array
    {
        if (self::$aliases === null) {
            self::$aliases = [];
            $doc = self::parse((string) (new \ReflectionClass(\IikoCloud\Api\Shapes::class))->getDocComment());
            foreach ($doc->children as $child) {
                if (isset($child->value) && $child->value instanceof TypeAliasTagValueNode) {
                    self::$aliases[$child->value->alias] = $child->value->type;
                }
            }
        }
        return self::$aliases;
    }

    /** @param array<string, mixed> $arguments */
    private static function resolveConditional(TypeNode $type, array $arguments): TypeNode
    {
        if (!$type instanceof ConditionalTypeForParameterNode) {
            return $type;
        }
        $value = $arguments[ltrim($type->parameterName, '$')] ?? false;
        $problems = [];
        self::check($type->targetType, $value, $type->parameterName, $problems);
        $holds = ($problems === []) !== $type->negated;
        return self::resolveConditional($holds ? $type->if : $type->else, $arguments);
    }

    /** @param list<string> $problems */
    private static function check(TypeNode $type, mixed $value, string $path, array &$problems): void
    {
        if ($type instanceof UnionTypeNode) {
            $best = null;
            foreach ($type->types as $member) {
                $found = [];
                self::check($member, $value, $path, $found);
                if ($found === []) {
                    return;
                }
                if ($best === null || count($found) < count($best)) {
                    $best = $found;
                }
            }
            array_push($problems, ...($best ?? []));
            return;
        }
        if ($type instanceof NullableTypeNode) {
            if ($value !== null) {
                self::check($type->type, $value, $path, $problems);
            }
            return;
        }
        if ($type instanceof ConstTypeNode) {
            $expected = $type->constExpr instanceof ConstExprStringNode || $type->constExpr instanceof ConstExprIntegerNode
                ? ($type->constExpr instanceof ConstExprIntegerNode ? (int) $type->constExpr->value : $type->constExpr->value)
                : null;
            if ($value !== $expected) {
                $problems[] = sprintf('%s: %s, not %s', $path, self::show($value), var_export($expected, true));
            }
            return;
        }
        if ($type instanceof ArrayShapeNode) {
            if (!is_array($value)) {
                $problems[] = sprintf('%s: %s, not an array', $path, self::show($value));
                return;
            }
            $known = [];
            $position = 0;
            foreach ($type->items as $item) {
                // `list{int, string}` and `array{int}`: the keys are 0, 1, …
                $key = match (true) {
                    $item->keyName === null => $position++,
                    $item->keyName instanceof IdentifierTypeNode => $item->keyName->name,
                    $item->keyName instanceof ConstExprStringNode => $item->keyName->value,
                    $item->keyName instanceof ConstExprIntegerNode => (int) $item->keyName->value,
                    default => (string) $item->keyName,
                };
                $at = is_int($key) ? "{$path}[$key]" : "$path.$key";
                $known[$key] = true;
                if (!array_key_exists($key, $value)) {
                    if (!$item->optional) {
                        $problems[] = "$at: missing";
                    }
                    continue;
                }
                self::check($item->valueType, $value[$key], $at, $problems);
            }
            // `array{…, ...}` (every answer shape) takes keys it does not list;
            // a sealed one (a request of a closed schema) takes none.
            if ($type->sealed) {
                foreach (array_keys($value) as $key) {
                    if (!isset($known[$key])) {
                        $problems[] = sprintf('%s.%s: a key the sealed shape does not have', $path, $key);
                    }
                }
            }
            if ($type->kind === ArrayShapeNode::KIND_LIST && !array_is_list($value)) {
                $problems[] = sprintf('%s: an array, not a list', $path);
            }
            return;
        }
        if ($type instanceof GenericTypeNode) {
            $name = strtolower($type->type->name);
            if (!is_array($value) || ($name === 'list' && !array_is_list($value))) {
                $problems[] = sprintf('%s: %s, not %s', $path, self::show($value), $name === 'list' ? 'a list' : 'an array');
                return;
            }
            $item = $type->genericTypes[count($type->genericTypes) - 1];
            foreach ($value as $key => $element) {
                self::check($item, $element, $path . '[' . $key . ']', $problems);
            }
            return;
        }
        if ($type instanceof IdentifierTypeNode) {
            $ok = match (strtolower($type->name)) {
                'mixed' => true,
                'null' => $value === null,
                'string' => is_string($value),
                'numeric-string' => is_string($value) && is_numeric($value),
                'int' => is_int($value),
                'float' => is_float($value),
                'bool' => is_bool($value),
                'true' => $value === true,
                'false' => $value === false,
                'array' => is_array($value),
                default => null,
            };
            if ($ok === null) {
                $alias = self::aliases()[$type->name] ?? null;
                if ($alias === null) {
                    $problems[] = sprintf('%s: unknown type %s', $path, $type->name);
                    return;
                }
                self::check($alias, $value, $path, $problems);
                return;
            }
            if (!$ok) {
                $problems[] = sprintf('%s: %s, not %s', $path, self::show($value), $type->name);
            }
            return;
        }
        $problems[] = sprintf('%s: the check does not know the type %s', $path, $type);
    }

    private static function show(mixed $value): string
    {
        return is_array($value) ? 'an array' : var_export($value, true);
    }
}
