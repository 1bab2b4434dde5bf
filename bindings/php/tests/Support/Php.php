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
     * Starts `php -S` on a free loopback port with $script as its router and
     * waits until it accepts connections; its output goes to $log.
     *
     * @param array<string, string|false> $env changes to the environment (false removes a variable)
     * @param array<string, string> $ini
     * @return array{0: resource, 1: int} the server process and its port
     */
    public static function serve(string $script, array $env, string $log, array $ini = []): array
    {
        $probe = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
        if ($probe === false) {
            throw new \RuntimeException("no free port: $errstr");
        }
        $port = (int) substr((string) strrchr((string) stream_socket_get_name($probe, false), ':'), 1);
        fclose($probe);
        $server = proc_open(
            array_merge(self::command($ini), ['-S', "127.0.0.1:$port", $script]),
            [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'a'], 2 => ['file', $log, 'a']],
            $pipes,
            null,
            self::env($env)
        );
        if (!is_resource($server)) {
            throw new \RuntimeException('cannot start php -S');
        }
        $deadline = microtime(true) + 15;
        while (($socket = @fsockopen('127.0.0.1', $port, $errno, $errstr, 0.2)) === false) {
            if (microtime(true) > $deadline) {
                self::stop($server);
                throw new \RuntimeException('php -S did not start: ' . @file_get_contents($log));
            }
            usleep(50000);
        }
        fclose($socket);
        return [$server, $port];
    }

    /**
     * Stops a server of {@see serve()}.
     *
     * @param resource|null $server
     */
    public static function stop($server): void
    {
        if (is_resource($server)) {
            proc_terminate($server);
            proc_close($server);
        }
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
