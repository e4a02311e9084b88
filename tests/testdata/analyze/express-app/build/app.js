"use strict";exports.x=(p)=>p.evaluate({target:{service:"build",resource:"stale",action:"skipped"}});
