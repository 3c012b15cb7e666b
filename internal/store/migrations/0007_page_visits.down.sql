DROP TABLE page_visits;
