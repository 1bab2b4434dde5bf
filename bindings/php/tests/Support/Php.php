<?php

declare(strict_types=1);

namespace IikoCloud\Tests\Support;

/**
 * Runs PHP in child processes (for settings that must hold from start-up,
 * and for the multi-process tests).
 */
final class Php
{
    /**
     * The command line of a child PHP with FFI enabled, plus $ini settings.
     *
     * @param array<string, string> $ini
     * @return list<string>
     */
    public static function command(array $ini = []): array
    {
        $command = [PHP_BINARY, '-d', 'ffi.enable=1', '-d', 'display_errors=stderr'];
        foreach ($ini as $key => $value) {
            $command[] = '-d';
            $command[] = $key . '=' . $value;
        }
        return $command;
    }

    /**
     * Runs `php -r $code` (with the package autoloaded unless $autoload is false) and waits.
     *
     * @param array<string, string|false> $env changes to the environment (false removes a variable)
     * @param array<string, string> $ini
     * @param list<string> $args the script's $argv[1...]
     * @return array{0: int, 1: string, 2: string} exit status, stdout, stderr
     */
    public static function run(string $code, array $env = [], array $ini = [], bool $autoload = true, array $args = []): array
    {
        $prelude = $autoload ? 'require ' . var_export(dirname(__DIR__, 2) . '/autoload.php', true) . ';' : '';
        $command = array_merge(self::command($ini), ['-r', $prelude . $code, '--'], $args);
        $process = proc_open($command, [1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, null, self::env($env));
        if (!is_resource($process)) {
            throw new \RuntimeException('cannot start php');
        }
        $out = (string) stream_get_contents($pipes[1]);
        $err = (string) stream_get_contents($pipes[2]);
        fclose($pipes[1]);
        fclose($pipes[2]);
        return [proc_close($process), $out, $err];
    }

    /**
     * The current environment with changes.
     *
     * @param array<string, string|false> $changes
     * @return array<string, string>
     */
    public static function env(array $changes): array
    {
        $env = getenv();
        foreach ($changes as $key => $value) {
            if ($value === false) {
                unset($env[$key]);
            } else {
                $env[$key] = $value;
            }
        }
        return $env;
    }
}
