<?php
// An empty.php that reads 1 MiB of the upload and then kills its own worker,
// so nginx loses the upstream mid-transfer and answers 502.
$in = fopen('php://input', 'rb');
fread($in, 1048576);
posix_kill(getmypid(), 9);
