<?php

declare(strict_types=1);

/*
 * Checks every PHPDoc type of the given PHP files and folders with PHPStan's
 * own PHPDoc parser (Debian: php-phpstan-phpdoc-parser), where PHPStan itself
 * cannot be installed:
 *
 *   php scripts/phpdoc-check.php [--autoload FILE]... PATH...
 *
 *  - every tag that carries a type (@param, @return, @var, @throws,
 *    @property, @template, @phpstan-type/@psalm-type,
 *    @phpstan-import-type/@psalm-import-type, ...) parses;
 *  - every name a type uses is a built-in type, a template, a type alias
 *    defined or imported by the enclosing class, or a class that exists
 *    (the --autoload files, e.g. the package's autoload.php, load them);
 *  - an imported alias is defined by the class it is imported from;
 *  - no alias is named like a class in scope or a built-in type, and no
 *    alias refers to itself, directly or through others (PHPStan refuses
 *    both).
 *
 * It does not infer types: it is a syntax and name check, not PHPStan.
 * Prints one line per problem and a summary; exits 1 when there is a problem.
 */

$autoloads = [];
$paths = [];
for ($i = 1; $i < $argc; $i++) {
    if ($argv[$i] === '--autoload' && isset($argv[$i + 1])) {
        $autoloads[] = $argv[++$i];
    } else {
        $paths[] = $argv[$i];
    }
}
if ($paths === []) {
    fwrite(STDERR, "usage: php scripts/phpdoc-check.php [--autoload FILE]... PATH...\n");
    exit(2);
}

$parserAutoload = getenv('PHPDOC_PARSER_AUTOLOAD') ?: '/usr/share/php/PHPStan/PhpDocParser/autoload.php';
if (!is_file($parserAutoload)) {
    fwrite(STDERR, "phpdoc-check: $parserAutoload is missing: apt-get install php-phpstan-phpdoc-parser (or set PHPDOC_PARSER_AUTOLOAD)\n");
    exit(2);
}
require $parserAutoload;
foreach ($autoloads as $file) {
    require $file;
}

use PHPStan\PhpDocParser\Ast\Node;
use PHPStan\PhpDocParser\Ast\PhpDoc\InvalidTagValueNode;
use PHPStan\PhpDocParser\Ast\PhpDoc\PhpDocTagNode;
use PHPStan\PhpDocParser\Ast\PhpDoc\TemplateTagValueNode;
use PHPStan\PhpDocParser\Ast\PhpDoc\TypeAliasImportTagValueNode;
use PHPStan\PhpDocParser\Ast\PhpDoc\TypeAliasTagValueNode;
use PHPStan\PhpDocParser\Ast\Type\ArrayShapeItemNode;
use PHPStan\PhpDocParser\Ast\Type\ConstTypeNode;
use PHPStan\PhpDocParser\Ast\Type\GenericTypeNode;
use PHPStan\PhpDocParser\Ast\Type\IdentifierTypeNode;
use PHPStan\PhpDocParser\Lexer\Lexer;
use PHPStan\PhpDocParser\Parser\ConstExprParser;
use PHPStan\PhpDocParser\Parser\PhpDocParser;
use PHPStan\PhpDocParser\Parser\TokenIterator;
use PHPStan\PhpDocParser\Parser\TypeParser;

/** The names PHPStan and Psalm read as built-in types (compared in lower case). */
const BUILTIN = [
    'int', 'integer', 'positive-int', 'negative-int', 'non-positive-int', 'non-negative-int', 'non-zero-int',
    'string', 'lowercase-string', 'literal-string', 'class-string', 'interface-string', 'trait-string',
    'enum-string', 'callable-string', 'array-key', 'scalar', 'empty-scalar', 'non-empty-scalar', 'number',
    'numeric', 'numeric-string', 'non-empty-string', 'non-empty-lowercase-string', 'truthy-string',
    'non-falsy-string', 'non-empty-literal-string', 'bool', 'boolean', 'true', 'false', 'null', 'float',
    'double', 'array', 'associative-array', 'non-empty-array', 'iterable', 'callable', 'pure-callable',
    'pure-closure', 'resource', 'closed-resource', 'open-resource', 'mixed', 'non-empty-mixed', 'void',
    'object', 'callable-object', 'callable-array', 'never', 'noreturn', 'never-return', 'never-returns',
    'no-return', 'list', 'non-empty-list', 'empty', 'self', 'static', 'parent', 'key-of', 'value-of',
    'int-mask', 'int-mask-of', '__stringandstringable',
];

/** A docblock and where it stands. */
final class DocBlock
{
    public function __construct(
        public readonly string $file,
        public readonly int $line,
        public readonly string $text,
        /** The class it documents, or (null) its member's class or none. */
        public readonly ?string $classDoc,
        /** The innermost class it stands in (or documents). */
        public readonly ?string $class,
        public readonly string $namespace,
        /** @var array<string, string> lower-case alias => class name */
        public readonly array $uses,
    ) {
    }
}

final class Checker
{
    /** @var list<string> */
    public array $problems = [];
    public int $docblocks = 0;
    public int $types = 0;
    /** @var array<string, array<string, Node>> class => alias => definition (or the import node) */
    private array $aliases = [];
    /** @var array<string, array<string, string>> class => alias => "Alias from Class" for imports */
    private array $imports = [];
    /** @var array<string, list<string>> class => template names */
    private array $templates = [];
    /** @var array<string, array<string, string>> lower-case class => alias => where (reflection) */
    private array $foreign = [];
    private Lexer $lexer;
    private PhpDocParser $parser;

    public function __construct()
    {
        $this->lexer = new Lexer();
        $constants = new ConstExprParser();
        $this->parser = new PhpDocParser(new TypeParser($constants), $constants);
    }

    /** @param list<DocBlock> $blocks */
    public function run(array $blocks): void
    {
        $parsed = [];
        // First the class docblocks: their aliases hold for every member.
        foreach ($blocks as $i => $block) {
            $parsed[$i] = $this->parse($block);
            if ($parsed[$i] === null || $block->classDoc === null) {
                continue;
            }
            foreach (self::tags($block, $parsed[$i]) as [$child, $line]) {
                $value = $child->value;
                if ($value instanceof TypeAliasTagValueNode) {
                    $this->defineAlias($block, $line, $value->alias, $value->type);
                } elseif ($value instanceof TypeAliasImportTagValueNode) {
                    $as = $value->importedAs ?? $value->importedAlias;
                    $this->defineAlias($block, $line, $as, $value);
                    $this->imports[$block->classDoc][$as] = $value->importedAlias . ' from ' . $value->importedFrom->name;
                } elseif ($value instanceof TemplateTagValueNode) {
                    $this->templates[$block->classDoc][] = $value->name;
                }
            }
        }
        foreach ($blocks as $i => $block) {
            if ($parsed[$i] !== null) {
                $this->check($block, $parsed[$i]);
            }
        }
        foreach ($this->aliases as $class => $aliases) {
            $this->findCycles($class, $aliases);
        }
    }

    private function parse(DocBlock $block): ?\PHPStan\PhpDocParser\Ast\PhpDoc\PhpDocNode
    {
        $this->docblocks++;
        try {
            return $this->parser->parse(new TokenIterator($this->lexer->tokenize($block->text)));
        } catch (\Throwable $e) {
            $this->problem($block, 0, 'the docblock does not parse: ' . $e->getMessage());
            return null;
        }
    }

    /**
     * The tags of a docblock with their line within it.
     *
     * @return list<array{PhpDocTagNode, int}>
     */
    private static function tags(DocBlock $block, \PHPStan\PhpDocParser\Ast\PhpDoc\PhpDocNode $doc): array
    {
        $tags = [];
        $offset = 0;
        foreach ($doc->children as $child) {
            if ($child instanceof PhpDocTagNode) {
                $offset = (int) strpos($block->text, $child->name, $offset);
                $tags[] = [$child, substr_count(substr($block->text, 0, $offset), "\n")];
                $offset += strlen($child->name);
            }
        }
        return $tags;
    }

    private function defineAlias(DocBlock $block, int $line, string $alias, Node $definition): void
    {
        $class = (string) $block->classDoc;
        if (in_array(strtolower($alias), BUILTIN, true)) {
            $this->problem($block, $line, "type alias $alias is named like a built-in type");
        } elseif (self::classExists($this->resolveClass($block, $alias))) {
            $this->problem($block, $line, "type alias $alias is named like the class " . $this->resolveClass($block, $alias));
        }
        if (isset($this->aliases[$class][$alias])) {
            $this->problem($block, $line, "type alias $alias is defined twice in $class");
        }
        $this->aliases[$class][$alias] = $definition;
    }

    private function check(DocBlock $block, \PHPStan\PhpDocParser\Ast\PhpDoc\PhpDocNode $doc): void
    {
        // Templates of this docblock (a method's) and of its class.
        $templates = $this->templates[$block->class ?? ''] ?? [];
        foreach ($doc->children as $child) {
            if ($child instanceof PhpDocTagNode && $child->value instanceof TemplateTagValueNode) {
                $templates[] = $child->value->name;
            }
        }
        foreach (self::tags($block, $doc) as [$child, $line]) {
            $value = $child->value;
            if ($value instanceof InvalidTagValueNode) {
                $this->problem($block, $line, sprintf('%s does not parse: %s (in "%s")', $child->name, $value->exception->getMessage(), self::short($value->value)));
                continue;
            }
            if ($value instanceof TypeAliasImportTagValueNode) {
                $this->checkImport($block, $line, $value);
                continue;
            }
            $names = [];
            self::identifiers($value, $names);
            if ($names === []) {
                continue;
            }
            $this->types++;
            foreach ($names as $name) {
                if (!$this->known($block, $name, $templates)) {
                    $this->problem($block, $line, sprintf('%s: %s is neither a type, a type alias in scope nor a class', $child->name, $name));
                }
            }
        }
    }

    private function checkImport(DocBlock $block, int $line, TypeAliasImportTagValueNode $value): void
    {
        $from = $this->resolveClass($block, $value->importedFrom->name);
        if (!self::classExists($from)) {
            $this->problem($block, $line, "imports $value->importedAlias from $from, which is not a class");
            return;
        }
        if (!isset($this->classAliases($from)[$value->importedAlias])) {
            $this->problem($block, $line, "imports $value->importedAlias from $from, which does not define it");
        }
    }

    /**
     * The aliases a class defines, from the docblocks read here or else
     * through reflection.
     *
     * @return array<string, true>
     */
    private function classAliases(string $class): array
    {
        $class = ltrim($class, '\\');
        foreach ($this->aliases as $name => $aliases) {
            if (strcasecmp($name, $class) === 0) {
                return array_map(static fn (): bool => true, $aliases);
            }
        }
        $key = strtolower($class);
        if (!isset($this->foreign[$key])) {
            $this->foreign[$key] = [];
            $text = (new \ReflectionClass($class))->getDocComment();
            if ($text !== false) {
                $doc = $this->parser->parse(new TokenIterator($this->lexer->tokenize($text)));
                foreach ($doc->children as $child) {
                    if ($child instanceof PhpDocTagNode && $child->value instanceof TypeAliasTagValueNode) {
                        $this->foreign[$key][$child->value->alias] = $class;
                    }
                }
            }
        }
        return array_map(static fn (): bool => true, $this->foreign[$key]);
    }

    /** @param list<string> $templates */
    private function known(DocBlock $block, string $name, array $templates): bool
    {
        if (in_array(strtolower($name), BUILTIN, true) || in_array($name, $templates, true)) {
            return true;
        }
        if ($block->class !== null && isset($this->aliases[$block->class][$name])) {
            return true;
        }
        return self::classExists($this->resolveClass($block, $name));
    }

    private function resolveClass(DocBlock $block, string $name): string
    {
        if (str_starts_with($name, '\\')) {
            return substr($name, 1);
        }
        $parts = explode('\\', $name, 2);
        $first = strtolower($parts[0]);
        if (isset($block->uses[$first])) {
            return $block->uses[$first] . (isset($parts[1]) ? '\\' . $parts[1] : '');
        }
        return ($block->namespace === '' ? '' : $block->namespace . '\\') . $name;
    }

    private static function classExists(string $class): bool
    {
        return class_exists($class) || interface_exists($class) || trait_exists($class) || enum_exists($class);
    }

    /**
     * The names a tag's types use (not shape keys, not `int<min, max>` bounds).
     *
     * @param list<string> $names
     */
    private static function identifiers(mixed $node, array &$names): void
    {
        if (is_array($node)) {
            foreach ($node as $item) {
                self::identifiers($item, $names);
            }
            return;
        }
        if (!$node instanceof Node || $node instanceof ConstTypeNode) {
            return;
        }
        if ($node instanceof IdentifierTypeNode) {
            $names[] = $node->name;
            return;
        }
        if ($node instanceof ArrayShapeItemNode) {
            self::identifiers($node->valueType, $names);
            return;
        }
        if ($node instanceof TypeAliasImportTagValueNode) {
            return;
        }
        if ($node instanceof GenericTypeNode && strtolower($node->type->name) === 'int') {
            return;
        }
        foreach (get_object_vars($node) as $value) {
            self::identifiers($value, $names);
        }
    }

    /**
     * PHPStan refuses an alias that reaches itself.
     *
     * @param array<string, Node> $aliases
     */
    private function findCycles(string $class, array $aliases): void
    {
        $edges = [];
        foreach ($aliases as $alias => $definition) {
            $names = [];
            if (!$definition instanceof TypeAliasImportTagValueNode) {
                self::identifiers($definition, $names);
            }
            $edges[$alias] = array_values(array_unique(array_filter($names, static fn (string $n): bool => isset($aliases[$n]))));
        }
        $state = [];
        foreach (array_keys($edges) as $start) {
            // Iterative depth-first search: the alias graph can be deep.
            if (isset($state[$start])) {
                continue;
            }
            $stack = [[$start, 0]];
            $state[$start] = 1;
            while ($stack !== []) {
                [$node, $next] = $stack[count($stack) - 1];
                if ($next < count($edges[$node])) {
                    $stack[count($stack) - 1][1]++;
                    $to = $edges[$node][$next];
                    if (($state[$to] ?? 0) === 1) {
                        $path = array_column($stack, 0);
                        $cycle = array_slice($path, (int) array_search($to, $path, true));
                        $this->problems[] = sprintf('%s: type alias %s refers to itself (%s)', $class, $to, implode(' -> ', [...$cycle, $to]));
                    } elseif (!isset($state[$to])) {
                        $state[$to] = 1;
                        $stack[] = [$to, 0];
                    }
                } else {
                    $state[$node] = 2;
                    array_pop($stack);
                }
            }
        }
    }

    private function problem(DocBlock $block, int $line, string $message): void
    {
        $this->problems[] = sprintf('%s:%d: %s', $block->file, $block->line + $line, $message);
    }

    private static function short(string $text): string
    {
        $text = (string) preg_replace('/\s+/', ' ', $text);
        return strlen($text) > 80 ? substr($text, 0, 77) . '...' : $text;
    }
}

/**
 * The docblocks of a PHP file with their namespace, `use` imports and class.
 *
 * @return list<DocBlock>
 */
function docblocks(string $file): array
{
    $tokens = PhpToken::tokenize((string) file_get_contents($file));
    $blocks = [];
    $namespace = '';
    $uses = [];
    $depth = 0;
    /** @var list<array{string, int}> $classes class name and the depth of its body */
    $classes = [];
    $pendingClass = null;
    $count = count($tokens);
    $significant = static function (int $from, int $step) use ($tokens, $count): ?PhpToken {
        for ($i = $from; $i >= 0 && $i < $count; $i += $step) {
            if (!$tokens[$i]->isIgnorable()) {
                return $tokens[$i];
            }
        }
        return null;
    };
    for ($i = 0; $i < $count; $i++) {
        $t = $tokens[$i];
        if ($t->is(T_NAMESPACE) && $depth === 0) {
            $name = '';
            for ($i++; $i < $count && !$tokens[$i]->is([';', '{']); $i++) {
                $name .= $tokens[$i]->isIgnorable() ? '' : $tokens[$i]->text;
            }
            $namespace = $name;
            $uses = [];
            if ($tokens[$i]->is('{')) {
                $depth++;
            }
            continue;
        }
        if ($t->is(T_USE) && $classes === [] && $significant($i - 1, -1)?->text !== ')') {
            // use A\B [as C], D; and use A\{B, C as D}; (not a closure's use)
            $text = '';
            for ($i++; $i < $count && !$tokens[$i]->is(';'); $i++) {
                $text .= $tokens[$i]->text;
            }
            $text = (string) preg_replace('/^\s*(function|const)\s+/', '', $text);
            if (preg_match('/^\s*([\w\\\\]+)\\\\\{(.*)\}\s*$/s', $text, $m) === 1) {
                $items = array_map(static fn (string $item): string => $m[1] . '\\' . trim($item), explode(',', $m[2]));
            } else {
                $items = explode(',', $text);
            }
            foreach ($items as $item) {
                $parts = preg_split('/\s+as\s+/i', trim($item));
                $class = ltrim((string) $parts[0], '\\');
                $alias = $parts[1] ?? substr((string) strrchr('\\' . $class, '\\'), 1);
                $uses[strtolower($alias)] = $class;
            }
            continue;
        }
        if ($t->is([T_CLASS, T_INTERFACE, T_TRAIT, T_ENUM]) && !$significant($i - 1, -1)?->is([T_DOUBLE_COLON, T_NEW])) {
            $name = $significant($i + 1, 1);
            if ($name !== null && $name->is(T_STRING)) {
                $pendingClass = ($namespace === '' ? '' : $namespace . '\\') . $name->text;
            }
            continue;
        }
        if ($t->is(['{', T_CURLY_OPEN, T_DOLLAR_OPEN_CURLY_BRACES])) {
            $depth++;
            if ($pendingClass !== null && $t->is('{')) {
                $classes[] = [$pendingClass, $depth];
                $pendingClass = null;
            }
            continue;
        }
        if ($t->is('}')) {
            if ($classes !== [] && $classes[count($classes) - 1][1] === $depth) {
                array_pop($classes);
            }
            $depth--;
            continue;
        }
        if ($t->is(T_DOC_COMMENT)) {
            // A class docblock stands before the class keyword, with only
            // modifiers and attributes between.
            $documents = null;
            for ($j = $i + 1; $j < $count; $j++) {
                $u = $tokens[$j];
                if ($u->isIgnorable() || $u->is([T_FINAL, T_ABSTRACT, T_READONLY])) {
                    continue;
                }
                if ($u->is(T_ATTRIBUTE)) {
                    for ($level = 1, $j++; $j < $count && $level > 0; $j++) {
                        $level += $tokens[$j]->is('[') || $tokens[$j]->is(T_ATTRIBUTE) ? 1 : ($tokens[$j]->is(']') ? -1 : 0);
                    }
                    $j--;
                    continue;
                }
                if ($u->is([T_CLASS, T_INTERFACE, T_TRAIT, T_ENUM])) {
                    $name = $significant($j + 1, 1);
                    if ($name !== null && $name->is(T_STRING)) {
                        $documents = ($namespace === '' ? '' : $namespace . '\\') . $name->text;
                    }
                }
                break;
            }
            $inside = $classes === [] ? null : $classes[count($classes) - 1][0];
            $blocks[] = new DocBlock($file, $t->line, $t->text, $documents, $documents ?? $inside, $namespace, $uses);
        }
    }
    return $blocks;
}

$files = [];
foreach ($paths as $path) {
    if (is_dir($path)) {
        $found = new RecursiveIteratorIterator(new RecursiveDirectoryIterator($path, FilesystemIterator::SKIP_DOTS));
        foreach ($found as $file) {
            if ($file->isFile() && $file->getExtension() === 'php') {
                $files[] = $file->getPathname();
            }
        }
    } elseif (is_file($path)) {
        $files[] = $path;
    } else {
        fwrite(STDERR, "phpdoc-check: no such file or folder: $path\n");
        exit(2);
    }
}
sort($files);
$blocks = [];
foreach ($files as $file) {
    array_push($blocks, ...docblocks($file));
}
$checker = new Checker();
$checker->run($blocks);
foreach ($checker->problems as $problem) {
    echo $problem, "\n";
}
printf(
    "phpdoc-check: %d files, %d docblocks, %d tags with types: %s\n",
    count($files),
    $checker->docblocks,
    $checker->types,
    $checker->problems === [] ? 'ok' : count($checker->problems) . ' problems'
);
exit($checker->problems === [] ? 0 : 1);
