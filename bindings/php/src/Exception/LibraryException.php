<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

use IikoCloud\Status;

/**
 * The C library cannot be used: PHP's FFI extension is missing or disabled
 * (`ffi.enable`), libiikocloud or its header was not found, or they do not
 * match this package's version. The message says what to do. Its status is
 * {@see Status::INTERNAL}.
 */
class LibraryException extends IikoException
{
    public function __construct(string $message, ?\Throwable $previous = null)
    {
        parent::__construct($message, Status::INTERNAL, null, null, $previous);
    }
}
