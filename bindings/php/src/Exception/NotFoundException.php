<?php

declare(strict_types=1);

namespace IikoCloud\Exception;

/**
 * HTTP 404: no such endpoint or entity (check the base URL and the path).
 */
class NotFoundException extends ApiException
{
}
